// The operations the metrics room serves: the Metrics caller kind's usage, bundle, error, app, node and forwarding
// reports and metrics storage (upstream's), and ours: the latest failed calls and the Prometheus scrape endpoint.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { RawBody } from '../../../schema/messages/host.js'
import {
  AppsMetrics, AppsMetricsRequest, BundleData, BundleMetrics, ErrorStats, FailedCalls, FailedCallsRequest,
  LatestBundleMetricReq, LatestUsageMetricReq, NodeForwardingMetrics, NodeMetrics, NodeMetricsRequest,
  ProvidersDisruption, SingleMetricReq, UsageMetricTlv, UsageMetrics, ZippedMetrics,
} from './messages/metrics.js'

export const metricsOperations = [
  operation({
    name: 'GetUsageMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/usage' },
    input: LatestUsageMetricReq, output: UsageMetrics,
    summary: 'Latest per-app, per-operation usage records (base64 TLV) with chunk paging information.',
  }),
  operation({
    name: 'GetBundleMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/bundle' },
    input: LatestBundleMetricReq, output: BundleMetrics,
    summary: 'Latest per-app time-series bundles with chunk paging information.',
  }),
  operation({
    name: 'GetSingleBundleMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/bundle/single' },
    input: SingleMetricReq, output: BundleData,
    summary: 'One page (chunk) of a named bundle metrics file; `app_id` must be empty and `metrics_name` set.',
  }),
  operation({
    name: 'GetSingleUsageMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/usage/single' },
    input: SingleMetricReq, output: UsageMetricTlv,
    summary: 'One page (chunk) of a named usage metrics file; `app_id` must be empty and `metrics_name` set.',
  }),
  operation({
    name: 'GetErrorStats', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/errors', body: 'none' },
    input: Empty, output: ErrorStats,
    summary: 'Request totals and failures over the last 24 h, 6 h, 1 h, 10 min and 1 min.',
  }),
  operation({
    name: 'GetAppsMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/apps' },
    input: AppsMetricsRequest, output: AppsMetrics,
    summary: 'Per application in a time window: user statistics, received, spent, available, fees and invoices, optionally the operations.',
  }),
  operation({
    name: 'GetNodeMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/node' },
    aliases: [{ name: 'GetLndMetrics', path: '/api/reports/lnd' }],
    input: NodeMetricsRequest, output: NodeMetrics,
    summary: 'Node balance graphs (chain, channel, external), channel counts, open and closed channels, forwarding totals and root operations in a time window.',
  }),
  operation({
    name: 'GetNodeForwardingMetrics', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/reports/node/forwarding' },
    aliases: [{ name: 'GetLndForwardingMetrics', path: '/api/reports/lnd/forwarding' }],
    input: NodeMetricsRequest, output: NodeForwardingMetrics,
    summary: 'Forwarding events in a time window and their total fees.',
  }),
  operation({
    name: 'ZipMetricsStorages', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/metrics/zip', body: 'none' },
    input: Empty, output: ZippedMetrics,
    summary: 'Zips the metrics stores and returns the server-side path of the archive.',
  }),
  operation({
    name: 'PingSubProcesses', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/metrics/ping', body: 'none' },
    input: Empty, output: Empty,
    summary: 'Checks that the store, the metrics files, the node, the relay pool and the scheduler each answer within 2 s.',
  }),
  operation({
    name: 'GetProvidersDisruption', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/metrics/providers/disruption', body: 'none' },
    input: Empty, output: ProvidersDisruption,
    summary: 'Liquidity providers currently disrupted, plus the node when the watchdog has locked outgoing payments.',
  }),
  operation({
    name: 'ResetMetricsStorages', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/metrics/reset', body: 'none' },
    input: Empty, output: Empty,
    summary: 'Wipes the metrics stores, when the configuration allows it.',
  }),
  // Ours, not upstream's: why the latest calls failed. The admin's, not the metrics token's: a reason can name an
  // invoice, a user or an app, and the metrics token is the one handed to dashboards and scrapers. Its own area,
  // like the scrape endpoint's, keeps the payments areas to upstream's.
  operation({
    name: 'GetFailedCalls', area: 'monitoring', auth: 'admin', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/reports/failures' },
    input: FailedCallsRequest, output: FailedCalls,
    summary:
      'The latest failed calls, newest first: when, operation, app, transport, error code and the reason as the caller got it (cut to 300 characters). Kept in memory for the last 1,000 failures since the daemon started; `since` (inclusive) and `until` (exclusive) are unix seconds, `limit` 1 to 1,000 (default 100).',
  }),
  // Ours, not upstream's: the scrape endpoint for Prometheus. Its own area keeps the payments areas to upstream's.
  operation({
    name: 'PrometheusMetrics', area: 'monitoring', auth: 'metrics', dialect: 'detail',
    http: { method: 'GET', path: '/metrics', body: 'none' },
    input: Empty, output: RawBody, produces: 'text/plain',
    summary:
      'Prometheus text exposition: calls, failures and latency by operation and transport, the users\' total balance, relay connections, node reachability and scheduler runs.',
  }),
]
