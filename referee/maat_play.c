/* maat_play.c -- play a game in-process with seeded random players and
 * print it readably: every public event, then the scores with their parts.
 * No bots, no sockets: a quick look at a game module and the rules engine.
 *
 *   maat-play [--game pyramids] [--seed N] [--seats N] [--deck FILE] [--quiet]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maat/msg.h"
#include "maat/game.h"
#include "maat/policy.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: maat-play [--game NAME] [--seed N] [--seats N] "
            "[--deck FILE] [--quiet]\n"
            "Plays one game between seeded random players inside this "
            "process and prints\nits public events and the final scores.  "
            "Defaults: pyramids, seed 1, 4 seats.\n");
}

static void print_event(const maat_rules *r, const maat_game *g,
                        const maat_event *e)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    r->encode_event(g, e, &pk);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, sb.data, sb.size, &off) ==
        MSGPACK_UNPACK_SUCCESS) {
        printf("  ");
        msgpack_object_print(stdout, u.data);
        printf("\n");
    }
    msgpack_unpacked_destroy(&u);
    msgpack_sbuffer_destroy(&sb);
}

int main(int argc, char **argv)
{
    const char *game = "pyramids", *deck = NULL;
    unsigned long long seed = 1;
    int seats = 4, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (v && !strcmp(a, "--game")) {
            game = v, i++;
        } else if (v && !strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 10), i++;
        } else if (v && !strcmp(a, "--seats")) {
            seats = atoi(v), i++;
        } else if (v && !strcmp(a, "--deck")) {
            deck = v, i++;
        } else {
            fprintf(stderr, "maat-play: unknown or incomplete option '%s'\n",
                    a);
            usage(stderr);
            return 2;
        }
    }
    const maat_rules *r = maat_rules_find(game);
    if (!r) {
        fprintf(stderr, "maat-play: no game named '%s'\n", game);
        return 2;
    }
    maat_options opt = {0};
    if (deck)
        maat_options_set(&opt, "deck", deck);
    maat_error err = {0};
    maat_setup *setup = r->setup_new(&opt, &err);
    if (!setup) {
        fprintf(stderr, "maat-play: %s\n", err.msg);
        return 2;
    }
    maat_events ev = {0};
    maat_game *g = r->game_new(setup, seed, seats, &ev, &err);
    if (!g) {
        fprintf(stderr, "maat-play: %s\n", err.msg);
        r->setup_destroy(&setup);
        return 2;
    }
    maat_rng rng;
    maat_rng_seed(&rng, maat_seed_derive(seed, 1));
    printf("%s, seed %llu, %d seats, random players\n", r->name, seed, seats);
    int decisions = 0;
    for (;;) {
        for (size_t i = 0; !quiet && i < ev.count; i++)
            if (ev.items[i].visible_to == MAAT_ALL_SEATS)
                print_event(r, g, &ev.items[i]);
        maat_events_clear(&ev);
        if (r->is_over(g))
            break;
        maat_action a;
        maat_policy_random(r, g, &rng, &a);
        if (r->apply(g, &a, &ev, &err)) {
            fprintf(stderr, "maat-play: internal error: %s\n", err.msg);
            return 1;
        }
        decisions++;
    }
    maat_score sc[MAAT_MAX_SEATS];
    r->scores(g, sc);
    printf("\n%d decisions.  Final scores:\n%-6s %-5s %-6s", decisions,
           "seat", "rank", "total");
    for (int p = 0; p < r->n_score_parts; p++)
        printf(" %8s", r->score_parts[p]);
    printf("\n");
    for (int i = 0; i < seats; i++) {
        printf("%-6d %-5d %-6d", i, sc[i].rank, sc[i].total);
        for (int p = 0; p < r->n_score_parts; p++)
            printf(" %8d", sc[i].part[p]);
        printf("\n");
    }
    maat_events_free(&ev);
    r->destroy(&g);
    r->setup_destroy(&setup);
    return 0;
}
