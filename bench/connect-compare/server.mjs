// Fake LND in its own process for the client comparison; writes what the client needs to argv[2].
import fs from 'node:fs'
import { randomBytes, createHash } from 'node:crypto'
const B = `${process.env.RELAYPAY_ROOT ?? new URL('../..', import.meta.url).pathname}/build`
const { startFakeLnd } = await import(`${B}/test/support/fake-lnd/fake-lnd.js`)
const { outsideInvoice } = await import(`${B}/test/support/outside-invoice.js`)
const fake = await startFakeLnd({ network: 'regtest' })
const n = Number(process.argv[3] ?? 3000)
const invoices = []
for (let i = 0; i < n; i++) {
  const preimage = randomBytes(32)
  const paymentHash = createHash('sha256').update(preimage).digest('hex')
  const inv = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 100_000, paymentHash })
  fake.node.remoteNodes.set(inv.payeePubkey, p => fake.node.payments.succeed(p.paymentHash, preimage.toString('hex')))
  invoices.push(inv.paymentRequest)
}
fs.writeFileSync(process.argv[2], JSON.stringify({ connection: fake.connection, invoices }))
setInterval(() => {}, 1 << 30)
