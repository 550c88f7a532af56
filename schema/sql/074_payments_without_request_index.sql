-- One index fewer written per payment (the cost of a payment must not grow with the journal). An index
-- keyed by an invoice's text takes each new payment at a random place, so once it outgrows the page cache every
-- payment costs a page read, a dirty page in the WAL and a page written again by the checkpoint; at 200k payments
-- payments_request (payment_request, serial) was 33 MB, the largest index written on the payment path. The payer's
-- attempts at one invoice are found through its payment hash (payments_hash) instead: the invoice text gives the
-- hash (ours from the invoice row, any other from its decoding).
DROP INDEX payments_request;
