// Fee rules of the payments service. All amounts are integers; every division
// names its rounding.

export interface FeePolicy {
  serviceFeeBps: number
  serviceFeeFloorSats: number
  routingFeeLimitBps: number
  routingFeeFloorSats: number
  internalUserFeeBps: number
  internalRootFeeBps: number
}

/** Outgoing-invoice service fee of a managed user: max(ceil(amount × bps / 10000), floor). */
export function serviceFeeSats(amountSats: number, policy: FeePolicy): number {
  return Math.max(Math.ceil((amountSats * policy.serviceFeeBps) / 10_000), policy.serviceFeeFloorSats)
}

/** Routing fee limit given to the node: max(floor(amount × bps / 10000), floor). */
export function routingFeeLimitSats(amountSats: number, policy: FeePolicy): number {
  return Math.max(Math.floor((amountSats * policy.routingFeeLimitBps) / 10_000), policy.routingFeeFloorSats)
}

/**
 * What a user can still send after the worst-case service fee (upstream formula):
 * max(0, balance − max(balance − floor(balance / (1 + bps/10000)), floor)).
 */
export function maxWithdrawableSats(
  balanceSats: number,
  policy: Pick<FeePolicy, 'serviceFeeBps' | 'serviceFeeFloorSats'>,
): number {
  const beforeFee = Math.floor((balanceSats * 10_000) / (10_000 + policy.serviceFeeBps))
  const fee = Math.max(balanceSats - beforeFee, policy.serviceFeeFloorSats)
  return Math.max(0, balanceSats - fee)
}

/** Upstream refuses to start unless the routing limit stays inside the service fee (it keeps the spread). */
export function checkFeeSpread(policy: FeePolicy): void {
  if (policy.routingFeeLimitBps > policy.serviceFeeBps || policy.routingFeeFloorSats > policy.serviceFeeFloorSats) {
    throw new Error('fees: the routing fee limit (bps and floor) must not exceed the service fee (bps and floor)')
  }
}

