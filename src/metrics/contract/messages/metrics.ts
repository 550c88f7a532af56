// Metrics reports: usage and bundle TLV files, error windows, per-app and per-node reports, forwarding,
// provider disruptions. Nested Lnd* types keep their upstream names. Fields: upstream's structs.proto.
import { bool, enumOf, int, list, map, message, optional, text } from '../../../../schema/dsl.js'
import { Application } from '../../../../schema/messages/apps.js'
import { ClosedChannel, OpenChannel } from '../../../../schema/messages/node.js'
import { UserOperation } from '../../../../schema/messages/operations.js'

export const UsageMetric = message('UsageMetric', {
  processed_at_ms: int(),
  parsed_in_nano: int(),
  auth_in_nano: int(),
  validate_in_nano: int(),
  handle_in_nano: int(),
  rpc_name: text(),
  batch: bool(),
  nostr: bool(),
  batch_size: int(),
  success: bool(),
  app_id: optional(text()),
})

export const UsageMetricTlv = message('UsageMetricTlv', {
  base_64_tlvs: list(text()), // each = base64 of one TLV-encoded UsageMetric
  current_chunk: int(),
  available_chunks: list(int()),
})

export const AppUsageMetrics = message('AppUsageMetrics', {
  app_metrics: map(UsageMetricTlv),
})

export const UsageMetrics = message('UsageMetrics', {
  apps: map(AppUsageMetrics),
})

export const LatestUsageMetricReq = message('LatestUsageMetricReq', {
  limit: optional(int()),
})

export const LatestBundleMetricReq = message('LatestBundleMetricReq', {
  limit: optional(int()),
})

export const BundleData = message('BundleData', {
  base_64_data: list(text()),
  current_chunk: int(),
  available_chunks: list(int()),
})

export const BundleMetric = message('BundleMetric', {
  app_bundles: map(BundleData),
})

export const BundleMetrics = message('BundleMetrics', {
  apps: map(BundleMetric),
})

export const SingleMetricType = enumOf('SingleMetricType', ['USAGE_METRIC', 'BUNDLE_METRIC'])

export const SingleMetricReq = message('SingleMetricReq', {
  app_id: text(), // must be "" (custom check)
  metrics_name: text(), // non-empty
  page: int(),
  metric_type: SingleMetricType,
  request_id: optional(int()),
})

export const ErrorStat = message('ErrorStat', {
  from_unix: int(), // window start, unix seconds
  total: int(),
  errors: int(),
})

export const ErrorStats = message('ErrorStats', {
  past24h: ErrorStat,
  past6h: ErrorStat,
  past1h: ErrorStat,
  past10m: ErrorStat,
  past1m: ErrorStat,
})

export const UsersInfo = message('UsersInfo', {
  total: int(),
  no_balance: int(),
  negative_balance: int(),
  always_been_inactive: int(),
  balance_avg: int(),
  balance_median: int(),
})

export const AppMetrics = message('AppMetrics', {
  app: Application,
  users: UsersInfo,
  received: int(),
  spent: int(),
  available: int(),
  fees: int(),
  invoices: int(),
  total_fees: int(),
  operations: list(UserOperation),
})

export const AppsMetrics = message('AppsMetrics', {
  apps: list(AppMetrics),
})

export const AppsMetricsRequest = message('AppsMetricsRequest', {
  from_unix: optional(int()),
  to_unix: optional(int()),
  include_operations: optional(bool()),
})

export const GraphPoint = message('GraphPoint', {
  x: int(),
  y: int(),
})

export const OperationType = enumOf('OperationType', ['CHAIN_OP', 'INVOICE_OP'])

export const RootOperation = message('RootOperation', {
  op_type: OperationType,
  op_id: text(),
  amount: int(),
  created_at_unix: int(),
})

export const LndNodeMetrics = message('LndNodeMetrics', {
  chain_balance: list(GraphPoint),
  channel_balance: list(GraphPoint),
  external_balance: list(GraphPoint),
  offline_channels: int(),
  online_channels: int(),
  pending_channels: int(),
  closing_channels: int(),
  open_channels: list(OpenChannel),
  closed_channels: list(ClosedChannel),
  forwarding_events: int(),
  forwarding_fees: int(),
  root_ops: list(RootOperation),
})

export const NodeMetrics = message('NodeMetrics', {
  nodes: list(LndNodeMetrics),
})

export const NodeMetricsRequest = message('NodeMetricsRequest', {
  from_unix: optional(int()),
  to_unix: optional(int()),
})

export const LndForwardingEvent = message('LndForwardingEvent', {
  chan_id_in: text(),
  chan_id_out: text(),
  amt_in: int(),
  amt_out: int(),
  fee: int(),
  at_unix: int(),
})

export const NodeForwardingMetrics = message('NodeForwardingMetrics', {
  total_fees: int(),
  events: list(LndForwardingEvent),
})

export const ZippedMetrics = message('ZippedMetrics', {
  path: text(), // server-side filesystem path of the zip
})

export const MetricsFile = message('MetricsFile', {})

export const ProviderDisruption = message('ProviderDisruption', {
  provider_pubkey: text(),
  provider_type: text(),
  since_unix: int(),
})

export const ProvidersDisruption = message('ProvidersDisruption', {
  disruptions: list(ProviderDisruption),
})

// Ours, not upstream's: the latest failed calls with their reasons (GetFailedCalls).
export const maxFailedCallsLimit = 1000

export const FailedCallsRequest = message('FailedCallsRequest', {
  since: optional(int().min(0)), // unix seconds, inclusive
  until: optional(int().min(0)), // unix seconds, exclusive
  limit: optional(int().min(1).max(maxFailedCallsLimit)), // default 100
})

export const FailedCall = message('FailedCall', {
  at_unix: int(), // when the call finished
  operation: text(), // as called (an upstream alias stays an alias, as in the usage records)
  app: text(), // the caller's app id, or "_root" for callers without one, as in the usage records
  transport: text(), // http, nostr, cli, batch or internal
  code: text(), // the error code (invalid_input, unauthenticated, forbidden, not_found, …)
  message: text(), // the reason as the caller got it, cut to 300 characters
})

export const FailedCalls = message('FailedCalls', {
  failures: list(FailedCall), // newest first
  capacity: int(), // how many of the latest failures the daemon keeps (in memory, since it started)
})
