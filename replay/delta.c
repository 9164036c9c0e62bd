/* delta.c -- JSON patches between successive positions (see delta.h). */
#include <stdio.h>
#include <stdlib.h>

#include "delta.h"

static int same_shape(json_t *a, json_t *b)
{
    return (json_is_object(a) && json_is_object(b)) ||
           (json_is_array(a) && json_is_array(b));
}

/* Arrays of different lengths: one splice between the common ends. */
static json_t *splice(json_t *a, json_t *b)
{
    size_t na = json_array_size(a), nb = json_array_size(b), head = 0, tail = 0;
    while (head < na && head < nb &&
           json_equal(json_array_get(a, head), json_array_get(b, head)))
        head++;
    while (tail < na - head && tail < nb - head &&
           json_equal(json_array_get(a, na - 1 - tail),
                      json_array_get(b, nb - 1 - tail)))
        tail++;
    json_t *items = json_array();
    for (size_t i = head; i < nb - tail; i++)
        json_array_append(items, json_array_get(b, i));
    return json_pack("{s:[I, I, o]}", "@", (json_int_t)head,
                     (json_int_t)(na - head - tail), items);
}

static void set_change(json_t *patch, const char *key, json_t *a, json_t *b)
{
    json_t *sub = same_shape(a, b) ? maat_json_delta(a, b) : NULL;
    if (sub)
        json_object_set_new(patch, key, sub);
    else
        json_object_set_new(patch, key, json_pack("[O]", b));
}

json_t *maat_json_delta(json_t *a, json_t *b)
{
    if (json_equal(a, b))
        return NULL;
    json_t *patch = json_object();
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *vb;
        json_object_foreach(b, k, vb) {
            json_t *va = json_object_get(a, k);
            if (!va || !json_equal(va, vb))
                set_change(patch, k, va, vb);
        }
        json_t *va;
        json_object_foreach(a, k, va)
            if (!json_object_get(b, k))
                json_object_set_new(patch, k, json_array());
    } else if (json_array_size(a) != json_array_size(b)) {
        json_decref(patch);
        return splice(a, b);
    } else if (same_shape(a, b)) {
        for (size_t i = 0; i < json_array_size(a); i++) {
            json_t *va = json_array_get(a, i), *vb = json_array_get(b, i);
            if (json_equal(va, vb))
                continue;
            char key[24];
            snprintf(key, sizeof key, "%zu", i);
            set_change(patch, key, va, vb);
        }
    } else {
        json_decref(patch);
        return NULL; /* the caller sets such a value whole */
    }
    return patch;
}

json_t *maat_json_patch(json_t *a, json_t *patch)
{
    json_t *out = json_deep_copy(a);
    json_t *sp = json_object_get(patch, "@");
    if (json_is_array(out) && json_is_array(sp)) {
        size_t at = (size_t)json_integer_value(json_array_get(sp, 0));
        size_t n = (size_t)json_integer_value(json_array_get(sp, 1));
        for (size_t i = 0; i < n; i++)
            json_array_remove(out, at);
        json_t *items = json_array_get(sp, 2);
        for (size_t i = 0; i < json_array_size(items); i++)
            json_array_insert(out, at + i, json_array_get(items, i));
        return out;
    }
    const char *k;
    json_t *p;
    json_object_foreach(patch, k, p) {
        json_t *v;
        if (json_is_array(p))
            v = json_array_size(p) ? json_incref(json_array_get(p, 0)) : NULL;
        else if (json_is_array(out))
            v = maat_json_patch(json_array_get(out, strtoul(k, NULL, 10)), p);
        else
            v = maat_json_patch(json_object_get(out, k), p);
        if (json_is_array(out))
            json_array_set_new(out, strtoul(k, NULL, 10), v);
        else if (v)
            json_object_set_new(out, k, v);
        else
            json_object_del(out, k);
    }
    return out;
}
