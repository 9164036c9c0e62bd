/* faults.c -- fault tallies per bot or side (see faults.h). */
#include <string.h>

#include "faults.h"

/* The detail of the first fault of `seat` in g's line. */
static void first_fault(const maat_ladder_game *g, int seat, char *out,
                        size_t len)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(g->line, "faults"), i, f) {
        if (json_integer_value(json_object_get(f, "seat")) != seat)
            continue;
        const char *kind = json_string_value(json_object_get(f, "kind"));
        const char *detail = json_string_value(json_object_get(f, "detail"));
        snprintf(out, len, "%s: %s", kind ? kind : "?",
                 detail ? detail : "");
        return;
    }
}

void maat_fault_tally_add(maat_fault_tally *t, const maat_ladder_game *g,
                          int seat)
{
    int any = 0;
    t->games++;
    for (int k = 0; k < MAAT_FAULT_KINDS; k++) {
        t->kinds[k] += g->faults[seat][k];
        any |= g->faults[seat][k] > 0;
    }
    if (!any)
        return;
    if (!t->faulty_games++) {
        snprintf(t->first_game, sizeof t->first_game, "%s", g->id);
        first_fault(g, seat, t->first_detail, sizeof t->first_detail);
        const char *log = json_string_value(
            json_array_get(json_object_get(g->line, "logs"), (size_t)seat));
        snprintf(t->first_log, sizeof t->first_log, "%s", log ? log : "");
    }
}

void maat_fault_tally_log(const maat_fault_tally *t, const char *ladder,
                          char *out, size_t len)
{
    const char *slash = strrchr(ladder, '/');
    if (!t->first_log[0] || t->first_log[0] == '/' || !slash)
        snprintf(out, len, "%s", t->first_log);
    else
        snprintf(out, len, "%.*s/%s", (int)(slash - ladder), ladder,
                 t->first_log);
}

int maat_fault_tally_broken(const maat_fault_tally *t, double share)
{
    return t->kinds[MAAT_FAULT_NO_HELLO] > 0 ||
           (t->faulty_games >= MAAT_FAULT_MIN_GAMES &&
            t->faulty_games > share * t->games);
}

void maat_fault_tally_describe(const maat_fault_tally *t, char *buf,
                               size_t len)
{
    int events = 0;
    for (int k = 0; k < MAAT_FAULT_KINDS; k++)
        events += t->kinds[k];
    if (!events) {
        snprintf(buf, len, "0 faults in %d game%s", t->games,
                 t->games == 1 ? "" : "s");
        return;
    }
    int n = snprintf(buf, len, "%d fault%s in %d of %d games (", events,
                     events == 1 ? "" : "s", t->faulty_games, t->games);
    const char *sep = "";
    for (int k = 0; k < MAAT_FAULT_KINDS && n > 0 && (size_t)n < len; k++)
        if (t->kinds[k]) {
            n += snprintf(buf + n, len - (size_t)n, "%s%s %d", sep,
                          maat_fault_names[k], t->kinds[k]);
            sep = ", ";
        }
    if (n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ")");
}
