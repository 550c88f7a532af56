// The `[nostr]` section of the configuration: the relays, the wire limits, and the embedded relay's limits
// (src/relay/limits.ts, docs/exposing.md). config.example.toml documents every key.
import { z } from '../vendor/zod.js'
import { port } from './fields.js'

export const nostrSection = z
  .strictObject({
    /** External relays; empty runs the embedded relay (the offline default). */
    relays: z.array(z.string().regex(/^wss?:\/\//, 'must be a ws:// or wss:// URL')).default([]),
    /**
     * The relays as clients elsewhere reach them (the wss:// name of the TLS proxy in front of the embedded relay),
     * named in every connection string handed out: NWC, nprofiles, CLINK pointers. Empty: the relays above (or the
     * embedded relay's own, loopback, address).
     */
    public_relays: z.array(z.string().regex(/^wss?:\/\//, 'must be a ws:// or wss:// URL')).default([]),
    embedded_relay_port: port.default(7447),
    max_event_age_seconds: z.int().min(10).default(600),
    /** Messages from a relay larger than this (bytes) are dropped unread, with a warning; the embedded relay's limit. */
    max_event_bytes: z.int().min(1024).default(256 * 1024),
    /** Replies longer than this many characters are split into shards (upstream default 40000). */
    max_content_length: z.int().min(1000).default(40000),
    /** The secp256k1 engine of signatures and conversation keys; one that cannot load gives way to the next. */
    crypto: z.enum(['native', 'wasm', 'js']).default('native'),
    // The embedded relay's limits (src/relay/limits.ts, docs/exposing.md); the daemon's own connections are exempt.
    /** false: only requests addressed to keys this daemon serves (and its own events); true: a general relay. */
    relay_open_writes: z.boolean().default(false),
    /** true: requests and replies go only to their author or addressee, authenticated by NIP-42 (src/relay/private-reads.ts). */
    relay_private_requests: z.boolean().default(false),
    relay_max_connections: z.int().min(1).default(1024),
    relay_max_connections_per_address: z.int().min(1).default(32),
    relay_connections_per_second_per_address: z.number().positive().default(20),
    relay_reserved_connections: z.int().min(1).default(64),
    /** Seconds a connection refused before the handshake waits for its 429 (0: at once). */
    relay_connection_refusal_delay_seconds: z.number().min(0).max(30).default(1),
    relay_idle_timeout_seconds: z.number().positive().default(60),
    relay_max_subscriptions: z.int().min(1).default(20),
    relay_max_subscriptions_per_address: z.int().min(1).default(64),
    relay_max_limit: z.int().min(1).default(500),
    relay_max_ephemeral_limit: z.int().min(1).default(10),
    relay_stored_events_per_second: z.int().min(1).default(500),
    relay_stored_events_per_second_per_address: z.int().min(1).default(1000),
    relay_stored_bytes_per_second_per_address: z.int().min(64 * 1024).default(256 * 1024),
    relay_events_per_second_per_author: z.number().positive().default(50),
    relay_events_per_second_per_address: z.number().positive().default(200),
    relay_messages_per_second_per_address: z.number().positive().default(1000),
    // The request kinds' own budgets per address (a request costs the daemon work whatever the storage budgets say).
    relay_max_request_bytes: z.int().min(4096).default(96 * 1024),
    relay_request_bytes_per_second_per_address: z.int().min(1024).default(256 * 1024),
    relay_new_keys_per_minute_per_address: z.int().min(1).default(20),
    relay_max_store_bytes: z.int().min(1024 * 1024).default(256 * 1024 * 1024),
    relay_max_author_bytes: z.int().min(1024).default(4 * 1024 * 1024),
    relay_max_address_bytes: z.int().min(1024).default(16 * 1024 * 1024),
    /** Free bytes kept on the data dir's disk for the payments database: below, the relay stores nothing. */
    relay_min_free_bytes: z.int().min(0).default(1024 * 1024 * 1024),
    /** Reverse proxies (peer addresses) whose X-Forwarded-For names the relay client. */
    relay_trusted_proxies: z.array(z.string()).default([]),
  })
  .refine(nostr => 5 * nostr.relay_request_bytes_per_second_per_address >= nostr.relay_max_request_bytes, {
    // The budget's burst is five seconds' worth: below one request of the largest size, such a request never passes.
    message: 'relay_request_bytes_per_second_per_address must be at least a fifth of relay_max_request_bytes',
    path: ['relay_request_bytes_per_second_per_address'],
  })
  .prefault({})
