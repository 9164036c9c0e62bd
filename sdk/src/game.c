/* game.c -- the registry of built-in games and the helpers every module
 * shares: event lists, ranks from totals, options. */
#include <stdlib.h>
#include <string.h>

#include "maat/game.h"
#include "games/registry.h"

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

const maat_rules *const *maat_rules_all(int *count)
{
    *count = (int)(sizeof all_rules / sizeof all_rules[0]);
    return all_rules;
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
