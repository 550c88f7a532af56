// prom-client, the metrics registry. Bundled into one file at build (docs/architecture.md, "Packages bundled at
// build"): with its OpenTelemetry dependency it is about 90 CommonJS modules.
export { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
