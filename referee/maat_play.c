/* maat_play.c -- play a game in-process with seeded random players and
 * print it readably: every public event, the position after each decision
 * if asked (the game module's text rendering, rules->render), then the
 * final position with the scores and their parts.  No bots, no sockets: a
 * quick look at a game module and the rules engine.
 *
 *   maat-play [--game pyramids] [--seed S] [--seats N] [--deck FILE]
 *             [--board] [--seat N] [--quiet]
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maat/internal/msg.h"
#include "cli.h"
#include "maat/game.h"
#include "maat/policy.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: maat-play [--game NAME] [--seed S] [--seats N] "
            "[--deck FILE] [--board] [--seat N] [--quiet]\n"
            "Plays one game between seeded random players inside this "
            "process and prints\nits public events and the final position "
            "with the scores.  Defaults: pyramids,\nseed 1, 4 seats.\n"
            "  --seed S  a number or 64 hex digits, e.g. a record's seed: "
            "the same deal\n"
            "  --board   also print the position after every decision\n"
            "  --seat N  print positions as seat N sees them (default: "
            "everything)\n"
            "  --quiet   no events\n"
            "Options take their value as --opt VALUE or --opt=VALUE; also "
            "--help, --version.\nGames: ");
    maat_cli_games(f);
    fprintf(f, "\n\nexample: maat-play --game pyramix --seats 3 --seed 5 "
               "--board\n");
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

/* The module's text rendering of the position as `seat` sees it. */
static void print_position(const maat_rules *r, const maat_game *g, int seat,
                           int after)
{
    char *text = maat_game_render(r, g, seat);
    if (after >= 0)
        printf("\n-- after decision %d --\n", after);
    fputs(text ? text : "(cannot render the position)\n", stdout);
    free(text);
}

int main(int argc, char **argv)
{
    const char *game = maat_rules_default()->name, *deck = NULL;
    maat_seed deal, players;
    maat_seed_from_u64(&deal, 1);
    int seats = 4, quiet = 0, board = 0, view = MAAT_OMNISCIENT;
    for (int i = 1; i < argc; i++) {
        char a[32];
        const char *v;
        int inline_value = maat_cli_split(argv[i], a, sizeof a, &v);
        long long n;
        int flag = !strcmp(a, "--help") || !strcmp(a, "-h") ||
                   !strcmp(a, "--version") || !strcmp(a, "--quiet") ||
                   !strcmp(a, "--board");
        int valued = !strcmp(a, "--game") || !strcmp(a, "--seed") ||
                     !strcmp(a, "--seats") || !strcmp(a, "--deck") ||
                     !strcmp(a, "--seat");
        if (!flag && !valued) {
            fprintf(stderr, "maat-play: unknown option '%s' (try "
                            "maat-play --help)\n", argv[i]);
            return 2;
        }
        if (flag && inline_value) {
            fprintf(stderr, "maat-play: %s takes no value, got '%s'\n", a,
                    argv[i]);
            return 2;
        }
        if (valued && !inline_value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "maat-play: %s needs a value\n", a);
                return 2;
            }
            v = argv[++i];
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            maat_cli_version(stdout, "maat-play");
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--board")) {
            board = 1;
        } else if (!strcmp(a, "--seat")) {
            if (maat_cli_int("maat-play", a, v, 0, MAAT_MAX_SEATS - 1,
                             "a seat, from 0", &n))
                return 2;
            view = (int)n;
        } else if (!strcmp(a, "--game")) {
            game = v;
        } else if (!strcmp(a, "--seed")) {
            maat_error e = {0};
            if (maat_seed_parse(&deal, v, &e)) {
                fprintf(stderr, "maat-play: --seed: %s\n", e.msg);
                return 2;
            }
        } else if (!strcmp(a, "--seats")) {
            if (maat_cli_int("maat-play", a, v, 1, MAAT_MAX_SEATS, NULL, &n))
                return 2;
            seats = (int)n;
        } else {
            deck = v;
        }
    }
    const maat_rules *r = maat_rules_find(game);
    if (!r) {
        fprintf(stderr, "maat-play: --game: no game named '%s' (games: ",
                game);
        maat_cli_games(stderr);
        fprintf(stderr, ")\n");
        return 2;
    }
    if (seats < r->min_seats || seats > r->max_seats) {
        fprintf(stderr, "maat-play: --seats: %s is played by %d to %d seats, "
                        "not %d\n", r->name, r->min_seats, r->max_seats,
                seats);
        return 2;
    }
    if (view != MAAT_OMNISCIENT && view >= seats) {
        fprintf(stderr, "maat-play: --seat %d: the seats are 0 to %d\n",
                view, seats - 1);
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
    maat_game *g = r->game_new(setup, &deal, seats, &ev, &err);
    if (!g) {
        fprintf(stderr, "maat-play: %s\n", err.msg);
        r->setup_destroy(&setup);
        return 2;
    }
    maat_rng rng;
    maat_seed_derive(&players, &deal, "players");
    maat_rng_seed(&rng, &players);
    char text[MAAT_SEED_TEXT];
    printf("%s, seed %s, %d seats, random players\n", r->name,
           maat_seed_format(&deal, text), seats);
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
        if (board && !r->is_over(g))
            print_position(r, g, view, decisions);
    }
    printf("\n%d decisions.  Final position:\n", decisions);
    print_position(r, g, view, -1);
    maat_events_free(&ev);
    r->destroy(&g);
    r->setup_destroy(&setup);
    return 0;
}
