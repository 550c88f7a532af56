-- Which paid invoices each extension's listener has finished with (at-least-once delivery across restarts).
CREATE TABLE extension_deliveries (
  extension     TEXT NOT NULL,
  payment_hash  TEXT NOT NULL,
  delivered_at  INTEGER NOT NULL,
  PRIMARY KEY (extension, payment_hash)
);
