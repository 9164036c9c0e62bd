/* list_games.c -- prints the registered games, one line each: name, the
 * least and most seats, the rules version, the score parts.  The Python
 * seam tests (test_games.py) take the games from here, so a game added to
 * the registry (sdk/src/game.c) is played by them with no other change. */
#include <stdio.h>

#include "maat/game.h"

int main(void)
{
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    for (int i = 0; i < n; i++) {
        const maat_rules *r = all[i];
        printf("%s %d %d %s", r->name, r->min_seats, r->max_seats,
               r->rules_version);
        for (int p = 0; p < r->n_score_parts; p++)
            printf(" %s", r->score_parts[p]);
        printf("\n");
    }
    return 0;
}
