// pino, the logger. Bundled into one file at build (docs/architecture.md, "Packages bundled at build"). Its
// transports (worker threads that load files by path) are not used: the daemon writes to a stream.
export { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino'
