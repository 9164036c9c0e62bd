/* outcome.h -- the facts about a finished game that the referee writes and
 * the ladder reads, each defined once: the fault kinds, the match-rank
 * rule, and what a match id may be.  A small library with no dependency
 * but the C library, linked by maat-referee and maat-ladder alike.
 */
#ifndef MAAT_OUTCOME_H
#define MAAT_OUTCOME_H

#include <stddef.h>

#include <jansson.h>

/* The kinds of fault a seat can commit (docs/REFEREE.md, "Faults"), in the
 * order of their names in records and ladder lines. */
enum {
    MAAT_FAULT_TIMEOUT,
    MAAT_FAULT_ILLEGAL,
    MAAT_FAULT_MALFORMED,
    MAAT_FAULT_CRASH,
    MAAT_FAULT_NO_HELLO,
    MAAT_FAULT_KINDS
};
extern const char *const maat_fault_names[MAAT_FAULT_KINDS];
/* The kind named `name`, or -1. */
int maat_fault_kind(const char *name);

/* Match ranks from the game's own ranks: seats that finished cleanly come
 * first, in the game's order (its ranks include any tie-break its rules
 * have), ties sharing a place; then the seats that were out, in the same
 * order among themselves.  game_rank, out and rank are indexed by seat. */
void maat_match_ranks(int seats, const int *game_rank, const int *out,
                      int *rank);

/* Match ids name files and appear in pages and ladder lines, so they are
 * kept plain: 1 to MAAT_MAX_MATCH_ID bytes of ASCII letters, digits and
 * . _ - : + @ (never starting with '.' or '-'). */
#define MAAT_MAX_MATCH_ID 200
int maat_match_id_valid(const char *id);

/* Make s safe to print and to store as a JSON string, in place: each byte
 * that is not part of valid UTF-8, and each control character (C0, DEL,
 * C1's two bytes, and the bidirectional controls' bytes, which would show
 * text reordered), becomes '?'.  Text a bot sent (a map key in a bad action, say) reaches fault
 * details this way, and a record must never fail to be written for it. */
void maat_text_sanitize(char *s);

/* What a JSON type is, for an error that names a field: "an object",
 * "a whole number", "null"...; type -1: "missing" (no value). */
const char *maat_json_type_name(int type);

#endif
