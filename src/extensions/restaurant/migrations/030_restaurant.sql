-- The restaurant extension (docs/restaurant.md). Times are epoch milliseconds; the handlers write them as ISO-8601
-- UTC. Prices are decimal text in the restaurant currency (never floats).

CREATE TABLE restaurant_restaurants (
  id                 TEXT PRIMARY KEY,
  wallet             TEXT NOT NULL,                 -- the owning wallet (users.id); its admin key manages it
  account_id         TEXT NOT NULL,                 -- the wallet's account, for `all_wallets=true`
  name               TEXT NOT NULL,
  slug               TEXT NOT NULL UNIQUE,
  description        TEXT NOT NULL DEFAULT '',
  currency           TEXT NOT NULL,                 -- 'sat' or ISO-4217
  timezone           TEXT NOT NULL,                 -- IANA
  image              TEXT,
  active             INTEGER NOT NULL DEFAULT 1,
  nostr_secret_key   TEXT NOT NULL,                 -- hex; signs the stall and its products, never leaves the daemon
  stall_created_at   INTEGER,                       -- created_at (seconds) of the last stall event published
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
);
CREATE INDEX restaurant_restaurants_wallet ON restaurant_restaurants(wallet);
CREATE INDEX restaurant_restaurants_account ON restaurant_restaurants(account_id);

CREATE TABLE restaurant_menu_nodes (
  id             TEXT PRIMARY KEY,
  restaurant_id  TEXT NOT NULL REFERENCES restaurant_restaurants(id) ON DELETE CASCADE,
  parent_id      TEXT REFERENCES restaurant_menu_nodes(id),
  name           TEXT NOT NULL,
  description    TEXT NOT NULL DEFAULT '',
  sort           INTEGER NOT NULL DEFAULT 0,
  image          TEXT,
  depth          INTEGER NOT NULL,                  -- root = 0
  path           TEXT NOT NULL,                     -- /<root id>/…/<own id>
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX restaurant_menu_nodes_restaurant ON restaurant_menu_nodes(restaurant_id);
CREATE INDEX restaurant_menu_nodes_parent ON restaurant_menu_nodes(parent_id);

CREATE TABLE restaurant_menu_items (
  id                  TEXT PRIMARY KEY,
  restaurant_id       TEXT NOT NULL REFERENCES restaurant_restaurants(id) ON DELETE CASCADE,
  node_id             TEXT REFERENCES restaurant_menu_nodes(id),   -- null: detached
  name                TEXT NOT NULL,
  description         TEXT NOT NULL DEFAULT '',
  price               TEXT NOT NULL,
  image               TEXT,
  sort                INTEGER NOT NULL DEFAULT 0,
  active              INTEGER NOT NULL DEFAULT 1,
  sold_out            INTEGER NOT NULL DEFAULT 0,
  published_event_id  TEXT,
  published_created_at INTEGER,                     -- seconds; the next product event must be newer
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);
CREATE INDEX restaurant_menu_items_restaurant ON restaurant_menu_items(restaurant_id);
CREATE INDEX restaurant_menu_items_node ON restaurant_menu_items(node_id);

CREATE TABLE restaurant_modifier_groups (
  id          TEXT PRIMARY KEY,
  item_id     TEXT NOT NULL REFERENCES restaurant_menu_items(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  min_select  INTEGER NOT NULL DEFAULT 0,
  max_select  INTEGER,                              -- null: unbounded
  sort        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX restaurant_modifier_groups_item ON restaurant_modifier_groups(item_id);

CREATE TABLE restaurant_modifiers (
  id           TEXT PRIMARY KEY,
  group_id     TEXT NOT NULL REFERENCES restaurant_modifier_groups(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  price_delta  TEXT NOT NULL DEFAULT '0',
  sort         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX restaurant_modifiers_group ON restaurant_modifiers(group_id);

CREATE TABLE restaurant_availability_windows (
  id       TEXT PRIMARY KEY,
  item_id  TEXT NOT NULL REFERENCES restaurant_menu_items(id) ON DELETE CASCADE,
  days     TEXT NOT NULL,                           -- JSON list of mon…sun
  start_time  TEXT NOT NULL,                        -- HH:MM
  end_time    TEXT NOT NULL                         -- HH:MM; at or before start crosses midnight
);
CREATE INDEX restaurant_availability_windows_item ON restaurant_availability_windows(item_id);

-- Orders and print jobs outlive their restaurant: they are records of money received.
CREATE TABLE restaurant_orders (
  id               TEXT PRIMARY KEY,
  restaurant_id    TEXT NOT NULL,
  status           TEXT NOT NULL,
  items            TEXT NOT NULL,                   -- JSON: the order lines, names and prices copied
  subtotal         TEXT NOT NULL,
  currency         TEXT NOT NULL,
  exchange_rate    TEXT,
  required_msat    INTEGER NOT NULL,
  payment_hash     TEXT NOT NULL UNIQUE,
  payment_request  TEXT NOT NULL,
  customer_note    TEXT,
  table_label      TEXT,
  expires_at       INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  paid_at          INTEGER,
  updated_at       INTEGER NOT NULL
);
CREATE INDEX restaurant_orders_restaurant ON restaurant_orders(restaurant_id, created_at);
CREATE INDEX restaurant_orders_pending ON restaurant_orders(status, expires_at);

CREATE TABLE restaurant_print_jobs (
  id             TEXT PRIMARY KEY,
  restaurant_id  TEXT NOT NULL,
  order_id       TEXT NOT NULL UNIQUE,             -- one ticket per paid order, however often payment is told
  status         TEXT NOT NULL,
  text           TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  printed_at     INTEGER
);
CREATE INDEX restaurant_print_jobs_restaurant ON restaurant_print_jobs(restaurant_id, status, created_at);

-- Host-wide settings; a missing key means its default.
CREATE TABLE restaurant_settings (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL                              -- JSON
);
