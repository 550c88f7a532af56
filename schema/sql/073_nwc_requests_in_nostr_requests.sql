-- NIP-47 requests are taken exactly once in the same claim store as every other Nostr request
-- (nostr_requests, app_pubkey = the connection's service key that signs the answer). The requests an earlier
-- version took move over, so a redelivery of one is still answered with its stored answer, never run again; the
-- stored answer {sentAt, content} becomes {sentAt, contents: [content]} (none when it was dropped unanswered).
INSERT INTO nostr_requests (event_id, requester, app_pubkey, created_at, received_at, reply)
SELECT r.event_id, r.requester, c.service_pubkey, r.created_at, r.received_at,
       CASE
         WHEN r.reply IS NULL THEN NULL
         WHEN json_extract(r.reply, '$.content') IS NULL
           THEN json_object('sentAt', json_extract(r.reply, '$.sentAt'), 'contents', json_array())
         ELSE json_object('sentAt', json_extract(r.reply, '$.sentAt'), 'contents', json_array(json_extract(r.reply, '$.content')))
       END
  FROM nwc_requests r JOIN nwc_connections c ON c.id = r.connection_id
 WHERE true
ON CONFLICT (event_id) DO NOTHING;
DROP TABLE nwc_requests;
