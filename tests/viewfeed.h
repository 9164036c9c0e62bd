/* viewfeed.h -- test helper: feed a bot's view exactly what the referee
 * would send a seat, through real msgpack bytes: the events since `from`
 * that the seat may see, and its observation.  Shared by the games'
 * property tests (test_*_props.c, test_pyramids_view.c) and
 * test_view_delta.c. */
#ifndef MAAT_TEST_VIEWFEED_H
#define MAAT_TEST_VIEWFEED_H

#include <msgpack.h>

#include "maat/game.h"
#include "maat/internal/msg.h"

/* `seat`'s observation of g into sb (cleared first). */
static inline void viewfeed_obs(const maat_rules *r, const maat_game *g,
                                int seat, msgpack_sbuffer *sb)
{
    msgpack_sbuffer_clear(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    r->encode_observation(g, seat, &pk);
}

/* The events ev[from..] that `seat` may see, as a request's `events`
 * array, into sb (cleared first); ev may be NULL (no events). */
static inline void viewfeed_events(const maat_rules *r,
                                   const maat_game *g, const maat_events *ev,
                                   size_t from, int seat, msgpack_sbuffer *sb)
{
    msgpack_sbuffer_clear(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    size_t n = 0;
    for (size_t k = from; ev && k < ev->count; k++)
        n += (ev->items[k].visible_to >> seat) & 1u;
    msgpack_pack_array(&pk, n);
    for (size_t k = from; ev && k < ev->count; k++)
        if ((ev->items[k].visible_to >> seat) & 1u)
            r->encode_event(g, &ev->items[k], &pk);
}

/* view_update with the events ev[from..] visible to `seat` and its
 * observation of g, as a request would carry them. */
static inline int viewfeed(const maat_rules *r, maat_view *v,
                           const maat_game *g, const maat_events *ev,
                           size_t from, int seat, maat_error *err)
{
    msgpack_sbuffer eb, ob;
    msgpack_sbuffer_init(&eb);
    msgpack_sbuffer_init(&ob);
    viewfeed_events(r, g, ev, from, seat, &eb);
    viewfeed_obs(r, g, seat, &ob);
    msgpack_unpacked eu, ou;
    int rc = maat_msg_unpack(eb.data, eb.size, &eu, err);
    if (!rc)
        rc = maat_msg_unpack(ob.data, ob.size, &ou, err);
    else
        msgpack_unpacked_init(&ou);
    if (!rc)
        rc = r->view_update(v, &eu.data, &ou.data, err);
    msgpack_unpacked_destroy(&eu);
    msgpack_unpacked_destroy(&ou);
    msgpack_sbuffer_destroy(&eb);
    msgpack_sbuffer_destroy(&ob);
    return rc;
}

#endif
