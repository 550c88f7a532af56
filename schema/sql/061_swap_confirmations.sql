-- A transaction swap is claimed (revealing the preimage that settles the hold invoice we paid) only once our own
-- node has seen the provider's lockup confirmed, unless the provider is trusted with zero_conf. What the wait
-- needs survives a restart: the lockup as the provider sent it (checked to pay the swap address the agreed
-- amount), the height the swap was paid at (the node looks for the lockup from there on), and the height of the
-- block our node saw confirm it.
ALTER TABLE tx_swaps ADD COLUMN lockup_tx_hex TEXT;
ALTER TABLE tx_swaps ADD COLUMN paid_height INTEGER;
ALTER TABLE tx_swaps ADD COLUMN lockup_confirmed_height INTEGER;
