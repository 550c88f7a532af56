// The files a running daemon leaves in its data dir for the CLI and tests. Their own module, so that `relaypay
// init`, `call` and `models` find them without loading the whole daemon (every room, seconds on a busy machine).

/** What `relaypay call` and tests read to find a running daemon. */
export const daemonInfoFile = 'daemon.json'
export const adminTokenFile = 'admin.token'
