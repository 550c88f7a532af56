-- An account opened by CLINK enroll (kind 21004) answers debit and manage requests of its own key only: another
-- key's request that would need the user's decision (no grant yet) is refused at once instead of waiting for it.
-- Grants the user gives later still apply. 0 for every other account.
ALTER TABLE app_users ADD COLUMN owner_only_clink INTEGER NOT NULL DEFAULT 0;
