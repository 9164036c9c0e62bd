/* test_records.c -- the record round trip of every registered game:
 * reproducible, verified, tamper-evident (a game added to the registry is
 * covered with no change here).
 *
 * For each game of maat_rules_all, maat-referee plays a seeded match of
 * spies (tests/bots/spy.c) five times:
 *   - twice with the same seed and the same spy seeds: the records are
 *     byte-identical, and so is every byte each spy received;
 *   - twice more so with every spy on protocol version 2, then 3 (no
 *     legal list: the spies play from their views): the record is
 *     byte-identical again (it never depends on the protocol), the bytes
 *     the spies received are not;
 *   - once with other spy seeds: the record differs (the spies' choices
 *     reach it: the first two were not identical by accident);
 * and `maat-referee --verify` replays the record through the rules:
 *   - the intact record exits 0;
 *   - a record whose first decision that can take it has an action that
 *     decodes but the rules refuse (a field changed within its declared
 *     range, wire.h: found by trying values until apply says no) exits 3
 *     naming that decision;
 *   - a record with one seat's score changed exits 3 naming the seat.
 *
 * Needs MAAT_REFEREE and MAAT_SPY (set by meson).
 */
#include "check.h"
#include "games/wire.h"
#include "matchlib.h"

static const char *referee_path, *spy_path;
static char workdir[512];

static int verify(const char *rec, const char *out)
{
    char *argv[] = {(char *)referee_path, "--verify", (char *)rec, NULL};
    return run(argv, out);
}

/* In `action` (JSON), the first field of its declared kind set to a value
 * of its declared range that decodes and that the rules refuse at g; 1 when
 * one was found. */
static int make_illegal(const maat_rules *r, const maat_game *g,
                        json_t *action)
{
    maat_action a;
    if (json_action(r, g, action, &a, NULL) != MAAT_OK)
        return 0;
    const maat_wire_kind *k = maat_wire_find(r->wire_actions, a.kind, a.arg);
    for (int i = 0; k && i < k->n_fields; i++) {
        const maat_wire_field *f = &k->fields[i];
        if (f->type != MAAT_WT_INT)
            continue;
        json_t *was = json_deep_copy(json_object_get(action, f->key));
        for (int v = f->lo; v <= f->hi && v <= f->lo + 200; v++) {
            json_object_set_new(action, f->key, json_integer(v));
            maat_action b;
            if (json_action(r, g, action, &b, NULL) != MAAT_OK)
                continue;
            maat_game *c = r->copy(g);
            int rc = r->apply(c, &b, NULL, NULL);
            r->destroy(&c);
            if (rc == MAAT_EILLEGAL) {
                json_decref(was);
                return 1;
            }
        }
        json_object_set_new(action, f->key, was);
    }
    return 0;
}

static void round_trip(const maat_rules *r, int gi)
{
    int seats = r->min_seats + 1 <= r->max_seats ? r->min_seats + 1
                                                 : r->min_seats;
    uint64_t seed = 0x5eed00000000ULL + 4242 + (uint64_t)gi;
    char dir[5][700], pa[800], pb[800], out[800], want[64];
    for (int i = 0; i < 5; i++) {
        snprintf(dir[i], sizeof dir[i], "%s/%s-%c", workdir, r->name,
                 'a' + i);
        mkdir(dir[i], 0755);
    }
    int ra = run_spy_match(referee_path, spy_path, r->name, dir[0], seats,
                           seed, 17);
    int rb = run_spy_match(referee_path, spy_path, r->name, dir[1], seats,
                           seed, 17);
    int rc = run_spy_match(referee_path, spy_path, r->name, dir[2], seats,
                           seed, 18);
    /* the same match with every spy on protocol version 2, and on 3 */
    const int v2[MAAT_MAX_SEATS] = {2, 2, 2, 2, 2, 2, 2, 2},
              v3[MAAT_MAX_SEATS] = {3, 3, 3, 3, 3, 3, 3, 3};
    int rd = run_spy_match_v(referee_path, spy_path, r->name, dir[3], seats,
                             seed, 17, v2);
    int re = run_spy_match_v(referee_path, spy_path, r->name, dir[4], seats,
                             seed, 17, v3);
    CHECK(ra == 0 && rb == 0 && rc == 0 && rd == 0 && re == 0, "%s: matches "
          "exit %d, %d, %d, %d, %d", r->name, ra, rb, rc, rd, re);
    if (ra || rb || rc || rd || re)
        return;
    size_t len;
    snprintf(pa, sizeof pa, "%s/rec.json", dir[0]);
    snprintf(pb, sizeof pb, "%s/rec.json", dir[1]);
    CHECK(files_equal(pa, pb, &len) && len > 0, "%s: same seed, same "
          "deterministic bots: the records differ (%s, %s)", r->name, pa, pb);
    for (int s = 0; s < seats; s++) {
        snprintf(pa, sizeof pa, "%s/spy%d.bin", dir[0], s);
        snprintf(pb, sizeof pb, "%s/spy%d.bin", dir[1], s);
        CHECK(files_equal(pa, pb, &len) && len > 0, "%s: same seed, same "
              "bots: spy%d received different bytes", r->name, s);
    }
    /* the record never depends on the protocol version */
    snprintf(pa, sizeof pa, "%s/rec.json", dir[0]);
    snprintf(pb, sizeof pb, "%s/rec.json", dir[3]);
    CHECK(files_equal(pa, pb, &len) && len > 0, "%s: the same match with "
          "protocol version 2 spies gave another record (%s, %s)", r->name,
          pa, pb);
    snprintf(pb, sizeof pb, "%s/rec.json", dir[4]);
    CHECK(files_equal(pa, pb, &len) && len > 0, "%s: the same match with "
          "protocol version 3 spies gave another record (%s, %s)", r->name,
          pa, pb);
    snprintf(pb, sizeof pb, "%s/spy0.bin", dir[3]);
    snprintf(out, sizeof out, "%s/spy0.bin", dir[0]);
    size_t len2;
    CHECK(files_equal(pb, out, &len2) == 0, "%s: version 2 spies were sent "
          "the same bytes as version 1 ones", r->name);
    snprintf(out, sizeof out, "%s/spy0.bin", dir[4]);
    CHECK(files_equal(pb, out, &len2) == 0, "%s: version 3 spies were sent "
          "the same bytes as version 2 ones", r->name);
    snprintf(pa, sizeof pa, "%s/rec.json", dir[0]);
    snprintf(pb, sizeof pb, "%s/rec.json", dir[2]);
    CHECK(!files_equal(pa, pb, &len), "%s: another spy seed gave the same "
          "record: the spies ignore it", r->name);

    snprintf(out, sizeof out, "%s/verify-ok.out", dir[0]);
    int v = verify(pa, out);
    CHECK(v == 0, "%s: --verify of an intact record exits %d, want 0",
          r->name, v);
    if (v != 0)
        print_file(out);

    json_error_t je;
    json_t *rec = json_load_file(pa, 0, &je);
    CHECK(rec != NULL, "%s: %s", pa, je.text);
    if (!rec)
        return;

    /* tamper 1: an action the rules refuse */
    json_t *t1 = json_deep_copy(rec);
    maat_setup *setup = r->setup_new(NULL, NULL);
    maat_game *g = r->game_new(setup, SEED(seed), seats, NULL, NULL);
    size_t i, changed = (size_t)-1;
    json_t *d;
    json_array_foreach(json_object_get(t1, "decisions"), i, d) {
        json_t *act = json_object_get(d, "action");
        if (make_illegal(r, g, act)) {
            changed = i;
            break;
        }
        maat_action x;
        if (json_action(r, g, act, &x, NULL) == MAAT_OK)
            r->apply(g, &x, NULL, NULL);
    }
    r->destroy(&g);
    r->setup_destroy(&setup);
    char path[800];
    snprintf(path, sizeof path, "%s/tampered-action.json", dir[0]);
    CHECK(changed != (size_t)-1, "%s: no decision could take an illegal "
          "action", r->name);
    CHECK(json_dump_file(t1, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ==
          0, "cannot write %s", path);
    snprintf(out, sizeof out, "%s/verify-action.out", dir[0]);
    v = verify(path, out);
    snprintf(want, sizeof want, "decision %zu", changed);
    CHECK(v == 3 && file_contains(out, want), "%s: --verify of a record "
          "with an illegal action exits %d (want 3) naming '%s'?", r->name,
          v, want);
    if (v != 3 || !file_contains(out, want))
        print_file(out);
    json_decref(t1);

    /* tamper 2: one seat's score */
    json_t *t2 = json_deep_copy(rec);
    json_t *r1 = json_array_get(json_object_get(t2, "result"), 1);
    json_object_set_new(r1, "score", json_integer(json_integer_value(
                                         json_object_get(r1, "score")) + 1));
    snprintf(path, sizeof path, "%s/tampered-score.json", dir[0]);
    CHECK(json_dump_file(t2, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ==
          0, "cannot write %s", path);
    snprintf(out, sizeof out, "%s/verify-score.out", dir[0]);
    v = verify(path, out);
    CHECK(v == 3 && file_contains(out, "seat 1"), "%s: --verify of a "
          "record with a changed score exits %d (want 3) naming seat 1?",
          r->name, v);
    if (v != 3 || !file_contains(out, "seat 1"))
        print_file(out);
    json_decref(t2);
    json_decref(rec);
    printf("%s: %d seats, records identical, verified, tampering caught at "
           "decision %zu and in the result\n", r->name, seats, changed);
}

int main(void)
{
    int rc = matchlib_start("records", &referee_path, &spy_path, workdir,
                            sizeof workdir);
    if (rc)
        return rc;
    int n;
    const maat_rules *const *games = maat_rules_all(&n);
    for (int i = 0; i < n; i++)
        round_trip(games[i], i);
    if (check_failures)
        printf("work files kept in %s\n", workdir);
    else
        remove_tree(workdir);
    return check_done("records");
}
