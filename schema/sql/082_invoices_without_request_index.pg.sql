-- PostgreSQL twin of 082_invoices_without_request_index.sql (the SQLite file rebuilds the table, which PostgreSQL
-- does not need): the same end state. The UNIQUE on the invoice text goes; payment_hash stays UNIQUE, and our own
-- invoice is found by the hash its text names.
ALTER TABLE invoices DROP CONSTRAINT invoices_payment_request_key;
