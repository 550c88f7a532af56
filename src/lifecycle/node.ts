// The Lightning node the daemon fronts: made from `[node]`, asked for its identity (which waits for LND when
// `wait_for_node` says so), watched by the readiness probe, and loud about mock mode.
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Clock } from '../bus/index.js'
import type { Config } from '../config/index.js'
import type { Probes } from '../health/index.js'
import { createNode, mockModeWarning, nodeNotReadyReason, nodeOptions, type LightningNode } from '../node/index.js'
import type { Db } from '../store/index.js'

export async function startNode(config: Config, dataDir: string, deps: { db: Db; clock: Clock; log: Logger; probes: Probes }): Promise<LightningNode> {
  const { log, probes } = deps
  const node = await createNode(nodeOptions(config.node, dataDir, process.env), {
    db: deps.db,
    clock: deps.clock,
    random: bytes => randomBytes(bytes),
    log: log.child({ room: 'node' }),
  })
  const nodeInfo = await node.getInfo()
  log.info({ backend: config.node.backend, network: nodeInfo.network, pubkey: nodeInfo.pubkey }, 'lightning node ready')
  probes.watchNode(() => nodeNotReadyReason(node), {
    everyMs: config.health.node_check_seconds * 1000,
    timeoutMs: config.health.node_timeout_seconds * 1000,
  })
  if (node.mock) log.warn(mockModeWarning)
  return node
}
