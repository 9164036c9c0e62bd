/* playback.c -- opening a game record and replaying its decisions through
 * the rules, one at a time (see playback.h). */
#include <string.h>

#include "maat/internal/msg.h"
#include "playback.h"
#include "outcome.h"
#include "record.h"

/* What a record's field is instead of what it should be ("missing"...). */
static const char *kind(const json_t *v)
{
    return maat_json_type_name(v ? (int)json_typeof(v) : -1);
}

int maat_playback_open(maat_playback *p, const char *path,
                       const maat_options *overrides,
                       maat_events *ev, maat_error *err)
{
    memset(p, 0, sizeof *p);
    json_error_t je;
    /* a key given twice is refused: which one counts would be up to the
     * reader (a second "faults" read by one tool and not another) */
    p->rec = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!p->rec) /* line -1: the file could not be read at all */
        return je.line > 0 ? maat_error_set(err, MAAT_EFORMAT, "%s:%d: %s",
                                            path, je.line, je.text)
                           : maat_error_set(err, MAAT_EFORMAT, "%s",
                                            je.text);
    const char *game = json_string_value(json_object_get(p->rec, "game"));
    p->rules = maat_rules_find(game ? game : "");
    p->decisions = json_object_get(p->rec, "decisions");
    json_t *seats = json_object_get(p->rec, "seats");
    json_t *seed = json_object_get(p->rec, "seed");
    json_t *options = json_object_get(p->rec, "options");
    /* the seed's text (docs/RNG.md); records before issue 15 have a
     * number, which is the same short seed */
    maat_seed deal;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)json_integer_value(seed));
    int bad_seed = !(json_is_string(seed) || json_is_integer(seed)) ||
        maat_seed_parse(&deal, json_is_string(seed) ? json_string_value(seed)
                                                   : text,
                        NULL) != MAAT_OK;
    /* the first field at fault, named; the record's own text (a game
     * name) is cut and made printable: it may be anyone's */
    char what[160] = "";
    if (!json_is_object(p->rec) ||
        (!json_object_get(p->rec, "game") && !seed && !seats &&
         !p->decisions))
        snprintf(what, sizeof what, "not a maat record (a JSON object with "
                 "game, seed, seats, decisions)");
    else if (!game)
        snprintf(what, sizeof what, "field 'game' is %s, not a string (a "
                 "game name)", kind(json_object_get(p->rec, "game")));
    else if (!p->rules) {
        snprintf(what, sizeof what, "field 'game': no game named '%.40s%s'",
                 game, strlen(game) > 40 ? "..." : "");
        maat_text_sanitize(what);
    } else if (bad_seed && !(json_is_string(seed) || json_is_integer(seed)))
        snprintf(what, sizeof what, "field 'seed' is %s, not a string: a "
                 "number 0..18446744073709551615 or 64 hex digits",
                 kind(seed));
    else if (bad_seed) {
        const char *t = json_is_string(seed) ? json_string_value(seed) : text;
        snprintf(what, sizeof what, "field 'seed': '%.40s%s' is not a number "
                 "0..18446744073709551615 nor 64 hex digits", t,
                 strlen(t) > 40 ? "..." : "");
        maat_text_sanitize(what);
    } else if (!json_is_array(seats))
        snprintf(what, sizeof what, "field 'seats' is %s, not an array (one "
                 "object per seat)", kind(seats));
    else if (!json_is_array(p->decisions))
        snprintf(what, sizeof what, "field 'decisions' is %s, not an array",
                 kind(p->decisions));
    if (*what) {
        maat_playback_close(p);
        return maat_error_set(err, MAAT_EFORMAT, "%s: %s", path, what);
    }
    p->seats = (int)json_array_size(seats);
    p->seed = deal;
    /* the game's options as recorded (e.g. its deck file); the caller's
     * (--deck, --option) win */
    maat_options opt = {0};
    const char *key;
    json_t *value;
    int many = 0, more = 0; /* more options than a game can be given */
    json_object_foreach(options, key, value)
        if (json_is_string(value))
            many |= maat_options_set(&opt, key, json_string_value(value));
    int overridden = overrides && overrides->count > 0;
    for (int i = 0; overridden && i < overrides->count; i++)
        more |= maat_options_set(&opt, overrides->key[i],
                                 overrides->value[i]);
    if (many || more) {
        maat_playback_close(p);
        return many ? maat_error_set(err, MAAT_EFORMAT, "%s: field "
                                     "'options': more than %d game options",
                                     path, MAAT_MAX_OPTIONS)
                    : maat_error_set(err, MAAT_EINVAL, "%s: its game options "
                                     "and those given (--option, --deck) "
                                     "are more than %d different keys", path,
                                     MAAT_MAX_OPTIONS);
    }
    p->setup = p->rules->setup_new(&opt, err);
    if (!p->setup && !overridden && err) { /* the record's options, named */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        maat_error_set(err, err->code ? err->code : MAAT_EFORMAT,
                       "%s: field 'options': %s", path, why);
    }
    if (p->setup)
        p->game = p->rules->game_new(p->setup, &deal, p->seats, ev, err);
    if (!p->game) {
        int rc = err ? err->code : MAAT_EFORMAT;
        maat_playback_close(p);
        return rc ? rc : MAAT_EFORMAT;
    }
    return MAAT_OK;
}

int maat_playback_action(const maat_playback *p, maat_action *a,
                         maat_error *err)
{
    json_t *d = json_array_get(p->decisions, p->next);
    json_t *action = json_object_get(d, "action");
    if (!d)
        return maat_error_set(err, MAAT_ESTATE, "decision %zu: the record "
                              "has no more decisions", p->next);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, maat_sbuffer_write);
    int rc = maat_error_set(err, MAAT_EDECODE, "the action is not a JSON "
                            "object");
    if (json_is_object(action) && maat_json_to_msgpack(action, &pk) == 0) {
        msgpack_unpacked u;
        rc = maat_msg_unpack(sb.data, sb.size, &u, err);
        if (!rc)
            rc = p->rules->decode_action(p->game, &u.data, a, err);
        msgpack_unpacked_destroy(&u);
    }
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

int maat_playback_step(maat_playback *p, maat_events *ev, maat_error *err)
{
    const maat_rules *r = p->rules;
    if (p->next < json_array_size(p->decisions) && r->is_over(p->game))
        return maat_error_set(err, MAAT_ESTATE, "decision %zu: the game is "
                              "already over", p->next);
    maat_action a;
    int rc = maat_playback_action(p, &a, err);
    if (!rc)
        rc = r->apply(p->game, &a, ev, err);
    if (!rc)
        p->next++;
    return rc;
}

void maat_playback_close(maat_playback *p)
{
    if (p->game)
        p->rules->destroy(&p->game);
    if (p->setup)
        p->rules->setup_destroy(&p->setup);
    json_decref(p->rec);
    memset(p, 0, sizeof *p);
}
