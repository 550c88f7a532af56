// Every configuration key, its type and its default: the core's here, each extension's in its descriptor
// (src/extensions/<name>/contract/descriptor.ts). config.example.toml documents the same keys, assembled from the
// core's src/config/config.example.toml and each extension's own; a test keeps the two in step.
import path from 'node:path'
import { z } from '../vendor/zod.js'
import { nostrPubkey, port, url } from './fields.js'
import { nostrSection } from './nostr-section.js'
import { configSectionsOf } from '../../schema/extension.js'
import { extensionDescriptors } from '../extensions/descriptors.js'

/** The core's sections before the extensions'. */
const sectionsBeforeExtensions = {
  data_dir: z.string().min(1).default('./data'),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      /** One line per HTTP and Nostr request (operation, caller kind, outcome, status, duration, request id). */
      access: z.boolean().default(true),
      /** json: one JSON object a line; pretty: one readable line each; auto: pretty when stdout is a terminal. */
      format: z.enum(['auto', 'json', 'pretty']).default('auto'),
    })
    .prefault({}),
  http: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: port.default(1776),
      /** Public base URL used in LNURL links and HttpCreds; loopback URLs disable LNURL (upstream rule). */
      public_url: url.optional(),
      /** Enables GetHttpCreds (upstream ALLOW_HTTP_UPGRADE). */
      allow_upgrade: z.boolean().default(false),
      /** Largest accepted request body in bytes. */
      max_body_bytes: z.int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
      /** Largest body of an unauthenticated request (an extension's customer page, LNURL, mock controls); 413 above. */
      guest_max_body_bytes: z.int().min(1024).max(64 * 1024 * 1024).default(64 * 1024),
      /** Requests per minute one client address may make to unauthenticated routes (GET /api/health excepted)… */
      guest_requests_per_minute: z.int().min(1).default(1200),
      /** …and how many at once before that rate applies. Over it: 429 with Retry-After, before the body is read. */
      guest_burst: z.int().min(1).default(100),
      /** Time to send the request headers; slower clients are cut off (slowloris). */
      headers_timeout_seconds: z.int().min(1).max(600).default(60),
      /** Time to send the whole request, body included; answers may take longer (model downloads). */
      request_timeout_seconds: z.int().min(1).max(3600).default(300),
    })
    .refine(http => http.headers_timeout_seconds <= http.request_timeout_seconds, {
      message: 'headers_timeout_seconds must not exceed request_timeout_seconds',
      path: ['headers_timeout_seconds'],
    })
    .prefault({}),
  console: z
    .strictObject({
      /** Serves the operator console at /console/ on the HTTP port. */
      enabled: z.boolean().default(true),
      /** A console session ends after this many minutes without a request (each request renews it). */
      session_minutes: z.int().min(1).max(24 * 60).default(30),
      /** Believe `X-Forwarded-Proto: https` from a reverse proxy when deciding the session cookie is Secure. */
      trust_proxy: z.boolean().default(false),
    })
    .prefault({}),
  auth: z
    .strictObject({
      /** Static operator token; generated into <data_dir>/admin.token when unset. */
      admin_token: z.string().min(16).optional(),
      /** Token for the Metrics caller kind; falls back to the admin token. */
      metrics_token: z.string().min(16).optional(),
      /** HS256 secret for app and user tokens; generated into <data_dir>/.jwt_secret when unset. */
      jwt_secret: z.string().min(32).optional(),
      /** Wrong wallet page link secrets one client address may send per minute… */
      wallet_link_failures_per_minute: z.int().min(1).default(10),
      /** …and at once; over it every link from that address is refused unchecked (429) until the budget refills. */
      wallet_link_failures_burst: z.int().min(1).default(20),
    })
    .prefault({}),
  store: z
    .strictObject({
      /** `full`: every commit survives power loss; `normal`: survives a process crash only. */
      synchronous: z.enum(['full', 'normal']).default('full'),
      /**
       * PostgreSQL (`postgres://user:password@host:5432/db`): the books and every room's tables live there, and
       * several daemons may share them (one active, the others standby; docs/postgres.md). Unset: SQLite in the
       * data dir. The embedded relay's events and the embedded node's state stay in the data dir either way.
       */
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a postgres:// or postgresql:// URL')
        .optional(),
      /** Sessions the daemon keeps open to PostgreSQL (the active-daemon lock has one more of its own). */
      pool_size: z.int().min(2).max(200).default(10),
      /**
       * With `url`: while another daemon is active on these books, wait as its standby and take over when it stops.
       * Off: a start on books another daemon serves is refused, naming it (a second daemon by mistake never waits).
       */
      standby: z.boolean().default(false),
    })
    .prefault({}),
  node: z
    .strictObject({
      backend: z.enum(['embedded', 'lnd']).default('embedded'),
      network: z.enum(['regtest', 'testnet', 'signet', 'mainnet']).default('regtest'),
      alias: z.string().max(32).default('relaypay'),
      /** Embedded node: foreign invoices "succeed" after a short delay (demos only). */
      simulate_payments: z.boolean().default(false),
      /** Enables SetMockInvoiceAsPaid and the mock balance operations (test mode); off unless asked for. */
      mock: z.boolean().default(false),
      /** LND unreachable at start: wait and retry instead of refusing to start. */
      wait_for_node: z.boolean().default(false),
      lnd_socket: z.string().optional(),
      lnd_cert_path: z.string().optional(),
      lnd_macaroon_path: z.string().optional(),
    })
    .prefault({}),
  nostr: nostrSection,
  fees: z
    .strictObject({
      service_fee_bps: z.int().min(0).max(10000).default(60),
      service_fee_floor_sats: z.int().min(0).default(10),
      routing_fee_limit_bps: z.int().min(0).max(10000).default(50),
      routing_fee_floor_sats: z.int().min(0).default(5),
      internal_user_fee_bps: z.int().min(0).max(10000).default(0),
      internal_root_fee_bps: z.int().min(0).max(10000).default(0),
    })
    .prefault({}),
  apps: z
    .strictObject({
      /** Name of the app that exists from the first start and lets any Nostr key open an account. */
      default_app_name: z.string().min(1).default('wallet'),
      /** Allow a non-zero `balance` in AddAppUser (upstream ALLOW_BALANCE_MIGRATION). */
      allow_balance_migration: z.boolean().default(false),
      /** Advertised to wallets in UserInfo.bridge_url (an LNURL bridge for human-readable addresses). */
      bridge_url: z.string().default(''),
      /**
       * Accounts Nostr keys may open on their own (a first request to an app that lets clients create users), node
       * wide: a bucket of `new_accounts_burst` refilled at `new_accounts_per_minute`. Over it a new key is refused
       * with 429 and Retry-After; keys with accounts are never limited by it. CLINK enroll has its own bound
       * (`[clink] enroll_accounts_per_minute`).
       */
      new_accounts_per_minute: z.int().min(1).max(100_000).default(60),
      new_accounts_burst: z.int().min(1).max(100_000).default(300),
    })
    .prefault({}),
  clink: z
    .strictObject({
      /** How long a CLINK debit request parked for the user's decision waits before its requester hears GFY 3. */
      debit_request_seconds: z.int().min(1).max(86_400).default(600),
      /**
       * CLINK enroll (kind 21004): the proof of work a new key's request must carry (NIP-13 leading zero bits of its
       * id; 0: none), and how far its created_at may be from now.
       */
      enroll_pow_bits: z.int().min(0).max(32).default(18),
      enroll_max_delta_ms: z.int().min(1000).max(300_000).default(30_000),
      /**
       * New accounts CLINK enroll opens in any 60 s, node wide (a sliding window, as upstream's 60): a new key's
       * request beyond them is answered code 4 with the second the oldest of them leaves the window. Enroll's own
       * bound, apart from `[apps] new_accounts_per_minute`; keys that have an account are never counted.
       */
      enroll_accounts_per_minute: z.int().min(1).max(100_000).default(60),
      /**
       * What the clink-node beacon says about this node, when set: its operator's key, a website, a description; and an
       * image (http or https) both beacons name as each app's `avatarUrl`, as upstream names an app's avatar.
       */
      operator: nostrPubkey.default(''),
      beacon_website: z.string().trim().max(500).default(''),
      beacon_avatar_url: z.string().trim().max(500).pipe(z.union([z.literal(''), url])).default(''),
      beacon_description: z.string().trim().max(1000).default(''),
    })
    .prefault({}),
  lnurl: z
    .strictObject({
      allow_loopback: z.boolean().default(false),
      meta_text: z.string().default('LNURL via relaypay'),
      /** LNURL callbacks (pay, withdraw, channel) per client address: refill per minute, and the burst. */
      callbacks_per_minute: z.int().min(1).max(100_000).default(30),
      callbacks_burst: z.int().min(1).max(100_000).default(10),
    })
    .prefault({}),
  callbacks: z.strictObject({ allow_loopback: z.boolean().default(false) }).prefault({}),
  metrics: z
    .strictObject({
      /** One usage record per call under <data_dir>/metrics/usage (upstream RECORD_PERFORMANCE). */
      record_usage: z.boolean().default(true),
      /** Allows ResetMetricsStorages to wipe the metrics files (upstream ALLOW_RESET_METRICS_STORAGES). */
      allow_reset: z.boolean().default(false),
      /** Seconds between samples of the node's balances and reachability, the users' total and memory. */
      sample_seconds: z.int().min(1).max(3600).default(60),
    })
    .prefault({}),
  webrtc: z
    .strictObject({
      /** Answers SubmitWebRtcMessage offers (the metrics caller's experimental data channel). */
      enabled: z.boolean().default(true),
      /** STUN/TURN servers for ICE. None by default: only host candidates, and no public server is contacted. */
      ice_servers: z
        .array(
          z.strictObject({
            urls: z.union([z.string().regex(/^(stun|stuns|turn|turns):/), z.array(z.string().regex(/^(stun|stuns|turn|turns):/)).min(1)]),
            username: z.string().optional(),
            credential: z.string().optional(),
          }),
        )
        .default([]),
      /** The only addresses offered as host candidates, e.g. ["127.0.0.1"]; empty: every interface's address. */
      host_addresses: z.array(z.union([z.ipv4(), z.ipv6()])).default([]),
      /** Peer connections open at once (each metrics caller has at most one). */
      max_peers: z.int().min(1).max(64).default(4),
      /** A peer that has not connected this long after its offer is closed. */
      connect_timeout_seconds: z.int().min(1).max(600).default(30),
      /** A connected peer whose data channels are silent this long is closed. */
      idle_timeout_seconds: z.int().min(1).max(86_400).default(300),
    })
    .prefault({}),
  extensions: z
    .strictObject({
      /** Extensions only the operator may use. */
      admin_only: z.array(z.string()).default([]),
    })
    .prefault({}),
  rates: z
    .strictObject({
      /**
       * Exchange-rate providers to ask, name → base URL (coinbase, kraken, bitstamp, binance, bitfinex, yadio,
       * coingecko). None by default: the daemon contacts no public API unless the operator names it.
       */
      providers: z
        .partialRecord(z.enum(['coinbase', 'kraken', 'bitstamp', 'binance', 'bitfinex', 'yadio', 'coingecko']), url)
        .default({}),
      /** Per provider request. */
      timeout_ms: z.int().min(100).max(60_000).default(3000),
    })
    .prefault({}),
  swaps: z
    .strictObject({
      /** Off by default: swaps move real coins through a third party the operator must choose. */
      enabled: z.boolean().default(false),
      /**
       * Boltz v2 providers, quoted in parallel: `http` is the API base (…/v2/… is appended), `ws` its WebSocket
       * (default: `http` with ws(s):// and /v2/ws). No public provider is named by default. A transaction swap is
       * claimed once our own node sees the provider's lockup confirmed; `zero_conf = true` claims it from the
       * mempool at once, which lets that provider double-spend its lockup after taking the payment.
       */
      providers: z
        .array(
          z.strictObject({
            http: url,
            ws: z.url({ protocol: /^wss?$/ }).optional(),
            zero_conf: z.boolean().default(false),
          }),
        )
        .default([]),
      /** Per provider HTTP request. */
      timeout_ms: z.int().min(100).max(120_000).default(10_000),
      /** Seconds between looks at the node's block height (quote expiry, refund time locks). */
      block_poll_seconds: z.int().min(1).max(3600).default(30),
      /** How long PayAddress / PayAdminTransactionSwap wait for the on-chain claim before answering. */
      pay_wait_seconds: z.int().min(1).max(600).default(60),
    })
    .refine(swaps => !swaps.enabled || swaps.providers.length > 0, {
      message: 'swaps are enabled but no provider is configured: add providers = [{ http = "…" }]',
      path: ['providers'],
    })
    .prefault({}),
}

/** The rest of the core's sections, after the extensions' (the order a config file's sections are checked in). */
const sectionsAfterExtensions = {
  backup: z
    .strictObject({
      /** Scheduled backups go here (relative paths are under data_dir); unset: no scheduled backup. */
      dir: z.string().min(1).optional(),
      /** Seconds between scheduled backups. */
      interval_seconds: z.int().min(1).default(86_400),
      /** Scheduled archives kept in `dir`; older ones are removed after each new one. */
      keep: z.int().min(1).default(7),
    })
    .prefault({}),
  health: z
    .strictObject({
      /** Seconds between the readiness probe's background checks of the node (GET /readyz never calls the node). */
      node_check_seconds: z.int().min(1).max(3600).default(10),
      /** A node check that has no answer after this many seconds fails. */
      node_timeout_seconds: z.int().min(1).max(600).default(5),
    })
    .prefault({}),
  shutdown: z
    .strictObject({
      /**
       * On SIGTERM or SIGINT, how long the daemon waits for the calls it took to end before it stops anyway (what
       * is still running then ends as a crash would: payments are settled with the node at the next start).
       */
      grace_seconds: z.int().min(1).max(3600).default(30),
    })
    .prefault({}),
  models: z
    .strictObject({
      /** Where model files are downloaded from; HF_ENDPOINT is honoured when unset. */
      base_url: url.optional(),
      /**
       * Whether the optional local engine counts as installed: `auto` detects the package at start. `missing`
       * and `assume_installed` fix the answer (tests that serve fake model files).
       */
      engine: z.enum(['auto', 'missing', 'assume_installed']).default('auto'),
      /** A download fails when no byte arrives for this many seconds. */
      stall_timeout_seconds: z.int().min(1).default(60),
      /** A transcription (POST /recordings) fails after this many seconds; its engine context is replaced. */
      transcription_timeout_seconds: z.int().min(1).default(600),
      /**
       * Test-only: a JSON model list replacing the built-in catalogue, so integration tests can serve the synthetic
       * model (whose size and SHA-1 differ from the published files). Leave unset in production.
       */
      test_catalogue_file: z.string().min(1).optional(),
    })
    .prefault({}),
}

/** Each extension's section (the TOML table named by its id), from its descriptor; none may take a core section's name. */
const extensionSections = configSectionsOf(extensionDescriptors)
for (const name of Object.keys(extensionSections)) {
  if (name in sectionsBeforeExtensions || name in sectionsAfterExtensions) throw new Error(`an extension's config section [${name}] is a core section`)
}

export const configSchema = z.strictObject({
  ...sectionsBeforeExtensions,
  ...extensionSections,
  ...sectionsAfterExtensions,
}).superRefine((config, ctx) => {
  if (config.store.standby && config.store.url === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['store', 'standby'],
      message: 'a standby shares books in PostgreSQL with the active daemon: set [store] url too (SQLite books are one daemon\'s)',
    })
  }
  const dir = config.backup.dir
  if (dir === undefined) return
  // A scheduled backup archives the data dir's SQLite books: of books in PostgreSQL it would hold none.
  if (config.store.url !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['backup', 'dir'],
      message:
        "scheduled backups archive the data dir's SQLite books, and with [store] url the books are in PostgreSQL: " +
        "unset it and back the database up with pg_dump or your provider's backups (docs/backup.md)",
    })
  }
  // Archives written among the files they archive would each hold the ones before (a subfolder is not archived).
  if (path.resolve(config.data_dir, dir) === path.resolve(config.data_dir)) {
    ctx.addIssue({ code: 'custom', path: ['backup', 'dir'], message: 'must not be the data dir itself: name a folder of its own (for example "backups")' })
  }
})

export type Config = z.output<typeof configSchema>
