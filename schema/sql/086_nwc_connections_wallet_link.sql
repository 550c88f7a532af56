-- An NWC connection made on the wallet page names the wallet link whose secret made it: when that link is revoked
-- or replaced, its connections end with it (revoked_at and link_ended_at set in one statement) and leave the
-- wallet's connection list. NULL for a connection made otherwise (a user token, the console, an app), which a
-- link's end never touches. No foreign key: wallet_links is the wallet room's, and its rows are deleted on revoke.
ALTER TABLE nwc_connections ADD COLUMN wallet_link_id TEXT;
ALTER TABLE nwc_connections ADD COLUMN link_ended_at INTEGER;
CREATE INDEX nwc_connections_wallet_link ON nwc_connections(wallet_link_id) WHERE wallet_link_id IS NOT NULL;
