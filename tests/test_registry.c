/* test_registry.c -- every built-in game passes maat_rules_check, and a
 * table missing a required entry (render, among others) is refused with
 * the entry named. */
#include <string.h>

#include "check.h"
#include "maat/game.h"

int main(void)
{
    int n;
    const maat_rules *const *all = maat_rules_all(&n);
    CHECK(n >= 3, "%d games registered, want at least the 3 built in", n);
    /* the default every tool plays: the main game, and a registered one */
    CHECK(maat_rules_default() == maat_rules_find("pyramids") &&
          maat_rules_default() == all[0], "the default game is not "
          "Pyramids, the registry's first");
    for (int i = 0; i < n; i++) {
        maat_error err = {0, ""};
        CHECK(maat_rules_check(all[i], &err) == MAAT_OK, "%s: %s",
              all[i]->name, err.msg);
        CHECK(maat_rules_find(all[i]->name) == all[i], "%s not found",
              all[i]->name);
    }
    /* a game without render cannot be registered */
    maat_rules bad = *maat_rules_find("pyramix");
    bad.render = NULL;
    maat_error err = {0, ""};
    CHECK(maat_rules_check(&bad, &err) == MAAT_EINVAL, "a table without "
          "render passes");
    CHECK(strstr(err.msg, "game 'pyramix'") && strstr(err.msg, "'render'"),
          "the message names neither game nor entry: %s", err.msg);
    /* nor without any other entry, nor with bad counts */
    bad = *maat_rules_find("pyramids");
    bad.determinize = NULL;
    CHECK(maat_rules_check(&bad, &err) == MAAT_EINVAL &&
          strstr(err.msg, "'determinize'"), "%s", err.msg);
    bad = *maat_rules_find("pyramix");
    bad.view_legal_actions = NULL;
    CHECK(maat_rules_check(&bad, &err) == MAAT_EINVAL &&
          strstr(err.msg, "'view_legal_actions'"), "%s", err.msg);
    bad = *maat_rules_find("architects");
    bad.max_seats = MAAT_MAX_SEATS + 1;
    CHECK(maat_rules_check(&bad, &err) == MAAT_EINVAL &&
          strstr(err.msg, "seats"), "%s", err.msg);
    CHECK(maat_rules_check(NULL, &err) == MAAT_EINVAL, "NULL passes");
    return check_done("registry");
}
