-- PostgreSQL twin of 073_nwc_requests_in_nostr_requests.sql, the same move in PostgreSQL's JSON functions: a stored
-- answer {sentAt, content} becomes {sentAt, contents: [content]} (none when content is missing or null), ->> giving
-- NULL for both as SQLite's json_extract does.
INSERT INTO nostr_requests (event_id, requester, app_pubkey, created_at, received_at, reply)
SELECT r.event_id, r.requester, c.service_pubkey, r.created_at, r.received_at,
       CASE
         WHEN r.reply IS NULL THEN NULL
         WHEN (r.reply::jsonb ->> 'content') IS NULL
           THEN jsonb_build_object('sentAt', r.reply::jsonb -> 'sentAt', 'contents', jsonb_build_array())::text
         ELSE jsonb_build_object('sentAt', r.reply::jsonb -> 'sentAt', 'contents',
                                 jsonb_build_array(r.reply::jsonb -> 'content'))::text
       END
  FROM nwc_requests r JOIN nwc_connections c ON c.id = r.connection_id
ON CONFLICT (event_id) DO NOTHING;
DROP TABLE nwc_requests;
