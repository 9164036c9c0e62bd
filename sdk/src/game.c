/* game.c -- the registry of built-in games, the check every game module
 * must pass, and the helpers every module shares: event lists, ranks from
 * totals, options, a rendering as a new string. */
#include <stdlib.h>
#include <string.h>

#include "maat/game.h"
#include "games/registry.h"
#include "games/wire.h"

static const maat_rules *const all_rules[] = {
    &maat_pyramids_rules,
    &maat_pyramix_rules,
    &maat_architects_rules,
};

const maat_rules *maat_rules_find(const char *name)
{
    for (size_t i = 0; i < sizeof all_rules / sizeof all_rules[0]; i++)
        if (strcmp(all_rules[i]->name, name) == 0)
            return all_rules[i];
    return NULL;
}

const maat_rules *maat_rules_default(void)
{
    return all_rules[0];
}

const maat_rules *const *maat_rules_all(int *count)
{
    *count = (int)(sizeof all_rules / sizeof all_rules[0]);
    return all_rules;
}

int maat_rules_check(const maat_rules *r, maat_error *err)
{
    if (!r || !r->name || !r->name[0])
        return maat_error_set(err, MAAT_EINVAL, "a game module has no name");
    const char *missing = NULL;
#define NEED(field) \
    if (!missing && !r->field) \
        missing = #field
    NEED(rules_version); NEED(decision_names); NEED(event_names);
    NEED(score_parts); NEED(setup_new); NEED(setup_destroy);
    NEED(setup_encode); NEED(game_new); NEED(destroy); NEED(copy);
    NEED(seats); NEED(decision); NEED(is_over); NEED(legal_actions);
    NEED(apply); NEED(scores); NEED(encode_observation); NEED(render);
    NEED(encode_event); NEED(encode_action); NEED(decode_action);
    NEED(setup_decode); NEED(view_new); NEED(view_destroy);
    NEED(view_update); NEED(determinize); NEED(view_legal_actions);
    NEED(wire_actions);
    NEED(wire_events);
#undef NEED
    if (missing)
        return maat_error_set(err, MAAT_EINVAL, "game '%s': the rules table "
                              "has no '%s' (every entry is required, see "
                              "maat/game.h)", r->name, missing);
    if (r->min_seats < 1 || r->max_seats > MAAT_MAX_SEATS ||
        r->min_seats > r->max_seats)
        return maat_error_set(err, MAAT_EINVAL, "game '%s': seats %d..%d "
                              "(allowed 1..%d)", r->name, r->min_seats,
                              r->max_seats, MAAT_MAX_SEATS);
    if (r->n_decision_kinds < 1 || r->n_event_kinds < 1 ||
        r->n_score_parts < 0 || r->n_score_parts > MAAT_MAX_SCORE_PARTS)
        return maat_error_set(err, MAAT_EINVAL, "game '%s': needs at least "
                              "one decision and event kind and at most %d "
                              "score parts", r->name, MAAT_MAX_SCORE_PARTS);
    int rc = maat_wire_check(r->wire_actions, r->decision_names,
                             r->n_decision_kinds, r->name, err);
    if (!rc)
        rc = maat_wire_check(r->wire_events, r->event_names,
                             r->n_event_kinds, r->name, err);
    return rc;
}

char *maat_game_render(const maat_rules *r, const maat_game *g, int seat)
{
    int n = r->render(g, seat, NULL, 0);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && r->render(g, seat, s, (size_t)n + 1) != n) {
        free(s);
        s = NULL;
    }
    return s;
}

int maat_events_push(maat_events *ev, const maat_event *e)
{
    if (!ev)
        return MAAT_OK;
    if (ev->count == ev->cap) {
        size_t cap = ev->cap ? ev->cap * 2 : 64;
        maat_event *items = realloc(ev->items, cap * sizeof *items);
        if (!items)
            return MAAT_ENOMEM;
        ev->items = items;
        ev->cap = cap;
    }
    ev->items[ev->count++] = *e;
    return MAAT_OK;
}

void maat_events_clear(maat_events *ev)
{
    ev->count = 0;
}

void maat_events_free(maat_events *ev)
{
    free(ev->items);
    ev->items = NULL;
    ev->count = ev->cap = 0;
}

void maat_rank_scores(maat_score *s, int seats)
{
    for (int i = 0; i < seats; i++) {
        int better = 0;
        for (int j = 0; j < seats; j++)
            if (s[j].total > s[i].total)
                better++;
        s[i].rank = 1 + better;
    }
}

const char *maat_options_get(const maat_options *o, const char *key)
{
    if (!o)
        return NULL;
    for (int i = 0; i < o->count; i++)
        if (strcmp(o->key[i], key) == 0)
            return o->value[i];
    return NULL;
}

int maat_options_set(maat_options *o, const char *key, const char *value)
{
    for (int i = 0; i < o->count; i++)
        if (strcmp(o->key[i], key) == 0) {
            o->value[i] = value;
            return MAAT_OK;
        }
    if (o->count == MAAT_MAX_OPTIONS)
        return MAAT_EINVAL;
    o->key[o->count] = key;
    o->value[o->count] = value;
    o->count++;
    return MAAT_OK;
}
