-- A restaurant's unpaid orders are counted on every guest order (at most [restaurant] max_unpaid_orders at once).
CREATE INDEX restaurant_orders_unpaid ON restaurant_orders(restaurant_id) WHERE status = 'pending';
