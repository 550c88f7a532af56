-- An invoice's credit names the invoice by its serial, as the postings of payments, transfers, bans and test
-- balances name their rows (the cost of a payment must not grow with the journal). The ref was the
-- payment hash, which is random: each credit went into the journal's (kind, ref) index at a random place, and at a
-- million journal rows (a 27 MB index) that was a page read and a dirty page per payment. A serial is taken in
-- order, so a credit now goes in at the end. The credits posted before are renamed here, so the audit finds every
-- credit by one rule; a credit whose hash names no invoice keeps its ref, and the audit reports it as before.
-- Amounts, kinds and times are untouched. The same text runs on both engines.
UPDATE ledger_transactions
   SET ref = (SELECT CAST(i.serial AS TEXT) FROM invoices i WHERE i.payment_hash = ledger_transactions.ref)
 WHERE kind = 'invoice_credit'
   AND EXISTS (SELECT 1 FROM invoices i WHERE i.payment_hash = ledger_transactions.ref);
