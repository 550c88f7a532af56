// Unlocking a node that was started locked. Its wallet was made by --noseedbackup, which gives it LND's default
// passphrases (a public one and a private one); `lncli unlock` uses the one password it is given for both, so it
// cannot open such a wallet, and `lncli changepassword` reads from a terminal. WalletUnlocker.ChangePassword with
// an empty current password opens the wallet with the defaults, gives it `newPassword` and unlocks it. From then on
// the node unlocks from a file at each start (network.ts unlockFromFile).
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { unlockFromFile, type NetworkState, type NodeName } from './network.js'

const protoDir = path.join(path.dirname(createRequire(import.meta.url).resolve('lightning/package.json')), 'grpc', 'protos')

type Unlocker = grpc.Client & {
  changePassword(request: { current_password: Buffer; new_password: Buffer }, done: (err: grpc.ServiceError | null) => void): void
}

export async function setPasswordAndUnlock(state: NetworkState, name: NodeName, newPassword: string): Promise<void> {
  const node = state.nodes[name]
  const definition = protoLoader.loadSync(path.join(protoDir, 'walletunlocker.proto'), { keepCase: true, includeDirs: [protoDir] })
  const lnrpc = grpc.loadPackageDefinition(definition).lnrpc as unknown as { WalletUnlocker: new (address: string, credentials: grpc.ChannelCredentials) => Unlocker }
  const client = new lnrpc.WalletUnlocker(node.rpc, grpc.credentials.createSsl(fs.readFileSync(node.cert)))
  try {
    await new Promise<void>((resolve, reject) =>
      client.changePassword({ current_password: Buffer.alloc(0), new_password: Buffer.from(newPassword) }, err => (err ? reject(err) : resolve())),
    )
  } finally {
    client.close()
  }
  unlockFromFile(state, name, newPassword)
}
