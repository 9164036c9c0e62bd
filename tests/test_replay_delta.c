/* test_replay_delta.c -- replay/delta.c: patching a with delta(a, b) gives
 * b, over many random nested JSON values (objects, arrays of equal and of
 * different lengths, scalars, deletions); equal values give no patch; and
 * the page's JSON cannot close its <script> element (page.c). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "delta.h"
#include "maat/rng.h"
#include "page.h"

static json_t *random_value(maat_rng *rng, int depth)
{
    int kind = (int)maat_rng_below(rng, depth > 3 ? 3 : 6);
    switch (kind) {
    case 0: return json_integer((json_int_t)maat_rng_below(rng, 4));
    case 1: return maat_rng_below(rng, 2) ? json_true() : json_null();
    case 2: return json_string(maat_rng_below(rng, 2) ? "a" : "</script>");
    case 3:
    case 4: {
        json_t *o = json_object();
        int n = (int)maat_rng_below(rng, 4);
        for (int i = 0; i < n; i++) {
            char key[4] = {(char)('a' + maat_rng_below(rng, 5)), 0};
            json_object_set_new(o, key, random_value(rng, depth + 1));
        }
        return o;
    }
    default: {
        json_t *a = json_array();
        int n = (int)maat_rng_below(rng, 5);
        for (int i = 0; i < n; i++)
            json_array_append_new(a, random_value(rng, depth + 1));
        return a;
    }
    }
}

/* b: a with a few random changes, so patches are small and nested. */
static json_t *mutate(maat_rng *rng, json_t *a, int depth)
{
    if (maat_rng_below(rng, 4) == 0 || depth > 4)
        return random_value(rng, depth);
    json_t *b = json_deep_copy(a);
    if (json_is_object(b)) {
        const char *k;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(b, tmp, k, v) {
            unsigned r = (unsigned)maat_rng_below(rng, 4);
            if (r == 0)
                json_object_del(b, k);
            else if (r == 1)
                json_object_set_new(b, k, mutate(rng, v, depth + 1));
        }
        if (maat_rng_below(rng, 3) == 0)
            json_object_set_new(b, "new", random_value(rng, depth + 1));
    } else if (json_is_array(b)) {
        for (size_t i = 0; i < json_array_size(b); i++)
            if (maat_rng_below(rng, 3) == 0)
                json_array_set_new(b, i, mutate(rng, json_array_get(b, i),
                                                depth + 1));
        if (maat_rng_below(rng, 3) == 0 && json_array_size(b))
            json_array_remove(b, (size_t)maat_rng_below(rng, json_array_size(b)));
        if (maat_rng_below(rng, 3) == 0)
            json_array_insert_new(b, 0, random_value(rng, depth + 1));
    }
    return b;
}

int main(void)
{
    maat_rng rng;
    maat_rng_seed(&rng, SEED(16));
    int pairs = check_scaled(20000), patched = 0;
    for (int i = 0; i < pairs; i++) {
        json_t *a = json_object();
        json_object_set_new(a, "v", random_value(&rng, 0));
        json_t *b = json_object();
        json_object_set_new(b, "v", mutate(&rng, json_object_get(a, "v"), 0));
        json_t *d = maat_json_delta(a, b);
        if (json_equal(a, b)) {
            CHECK(d == NULL, "pair %d: a patch between equal values", i);
        } else if (d == NULL) {
            CHECK(0, "pair %d: no patch between different values", i);
        } else {
            json_t *c = maat_json_patch(a, d);
            if (!json_equal(b, c)) {
                char *sa = json_dumps(a, JSON_ENCODE_ANY | JSON_SORT_KEYS);
                char *sb = json_dumps(b, JSON_ENCODE_ANY | JSON_SORT_KEYS);
                char *sd = json_dumps(d, JSON_ENCODE_ANY | JSON_SORT_KEYS);
                CHECK(0, "pair %d: a %s\n  b %s\n  patch %s", i, sa, sb, sd);
                free(sa), free(sb), free(sd);
            }
            patched++;
            json_decref(c);
        }
        json_decref(d);
        json_decref(a);
        json_decref(b);
    }
    CHECK(patched > pairs / 4, "only %d of %d pairs differed", patched, pairs);

    /* what goes into <script type="application/json"> */
    json_t *doc = json_pack("{s:s, s:[s]}", "bot", "</script><script>x()</script>",
                            "log", "<!-- & \xe2\x80\xa8 -->");
    char *s = maat_html_json_for_script(doc);
    CHECK(s && !strchr(s, '<') && !strchr(s, '>') && !strchr(s, '&'),
          "unescaped markup: %s", s ? s : "(null)");
    json_error_t je;
    json_t *back = s ? json_loads(s, 0, &je) : NULL;
    CHECK(back && json_equal(back, doc), "the escaped JSON does not read back");
    CHECK(s && strstr(s, "\\u2028"), "U+2028 is not escaped: %s", s ? s : "");
    json_decref(back);
    json_decref(doc);
    free(s);
    return check_done("replay_delta");
}
