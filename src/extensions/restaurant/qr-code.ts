// A QR code encoder (ISO/IEC 18004, error correction level M, versions 1–40) that draws an SVG, for the
// ordering page's invoice. The page has no external assets, so this one function is also shipped to the
// browser as its own source text (`qrCodeSvg.toString()`): it must stay self-contained — no imports, no
// module-level constants, only what a browser and Node both have.

/** An SVG (black on white, 4-module quiet zone) of `text` as a QR code; upper-case BOLT11 fits alphanumeric mode. */
export function qrCodeSvg(text: string): string {
  // Level M: error-correction codewords per block and number of blocks, by version (index 0 unused).
  const eccPerBlock = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28]
  const blockCount = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25,
    26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49]
  const alphanumeric = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:'

  // 1. The data as bits, in alphanumeric mode when every character allows it, else bytes of UTF-8.
  const isAlphanumeric = [...text].every(c => alphanumeric.includes(c))
  const bytes = new TextEncoder().encode(text)
  const countBits = (version: number) =>
    isAlphanumeric ? (version < 10 ? 9 : version < 27 ? 11 : 13) : version < 10 ? 8 : 16
  const payload: number[] = []
  const push = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) payload.push((value >>> i) & 1)
  }
  if (isAlphanumeric) {
    for (let i = 0; i + 1 < text.length; i += 2) {
      push(alphanumeric.indexOf(text[i]!) * 45 + alphanumeric.indexOf(text[i + 1]!), 11)
    }
    if (text.length % 2 === 1) push(alphanumeric.indexOf(text[text.length - 1]!), 6)
  } else {
    for (const b of bytes) push(b, 8)
  }
  const characters = isAlphanumeric ? text.length : bytes.length

  // 2. The smallest version that holds mode, count and data.
  const rawModules = (v: number) => {
    let n = (16 * v + 128) * v + 64
    if (v >= 2) {
      const align = Math.floor(v / 7) + 2
      n -= (25 * align - 10) * align - 55
      if (v >= 7) n -= 36
    }
    return n
  }
  const dataCodewords = (v: number) => Math.floor(rawModules(v) / 8) - eccPerBlock[v]! * blockCount[v]!
  let version = 1
  while (4 + countBits(version) + payload.length > dataCodewords(version) * 8) {
    version++
    if (version > 40) throw new RangeError('text too long for a QR code')
  }
  const bits: number[] = []
  const pushBits = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1)
  }
  pushBits(isAlphanumeric ? 0b0010 : 0b0100, 4)
  pushBits(characters, countBits(version))
  bits.push(...payload)
  const capacity = dataCodewords(version) * 8
  pushBits(0, Math.min(4, capacity - bits.length))
  pushBits(0, (8 - (bits.length % 8)) % 8)
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) pushBits(pad, 8)
  const data: number[] = []
  for (let i = 0; i < bits.length; i += 8) data.push(parseInt(bits.slice(i, i + 8).join(''), 2))

  // 3. Reed–Solomon error correction over GF(256) (x^8 + x^4 + x^3 + x^2 + 1), per block, then interleaving.
  const multiply = (x: number, y: number) => {
    let z = 0
    for (let i = 7; i >= 0; i--) {
      z = (z << 1) ^ ((z >>> 7) * 0x11d)
      z ^= ((y >>> i) & 1) * x
    }
    return z
  }
  const eccLength = eccPerBlock[version]!
  const divisor: number[] = new Array(eccLength).fill(0)
  divisor[eccLength - 1] = 1
  let root = 1
  for (let i = 0; i < eccLength; i++) {
    for (let j = 0; j < eccLength; j++) {
      divisor[j] = multiply(divisor[j]!, root)
      if (j + 1 < eccLength) divisor[j] ^= divisor[j + 1]!
    }
    root = multiply(root, 0x02)
  }
  const remainder = (block: number[]) => {
    const result: number[] = new Array(eccLength).fill(0)
    for (const b of block) {
      const factor = b ^ result.shift()!
      result.push(0)
      for (let i = 0; i < eccLength; i++) result[i] ^= multiply(divisor[i]!, factor)
    }
    return result
  }
  const blocks = blockCount[version]!
  const totalCodewords = Math.floor(rawModules(version) / 8)
  const shortBlocks = blocks - (totalCodewords % blocks)
  const shortLength = Math.floor(totalCodewords / blocks) - eccLength
  const dataBlocks: number[][] = []
  const eccBlocks: number[][] = []
  for (let i = 0, k = 0; i < blocks; i++) {
    const length = shortLength + (i < shortBlocks ? 0 : 1)
    const block = data.slice(k, k + length)
    k += length
    dataBlocks.push(block)
    eccBlocks.push(remainder(block))
  }
  const codewords: number[] = []
  for (let i = 0; i <= shortLength; i++) for (const block of dataBlocks) if (i < block.length) codewords.push(block[i]!)
  for (let i = 0; i < eccLength; i++) for (const block of eccBlocks) codewords.push(block[i]!)

  // 4. The matrix: function patterns first (marked so data and masks skip them), then data in the zigzag.
  const size = version * 4 + 17
  const dark: boolean[][] = Array.from({ length: size }, () => new Array(size).fill(false))
  const reserved: boolean[][] = Array.from({ length: size }, () => new Array(size).fill(false))
  const set = (x: number, y: number, on: boolean) => {
    dark[y]![x] = on
    reserved[y]![x] = true
  }
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 === 0)
    set(i, 6, i % 2 === 0)
  }
  const finder = (cx: number, cy: number) => {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx
        const y = cy + dy
        const ring = Math.max(Math.abs(dx), Math.abs(dy))
        if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, ring !== 2 && ring !== 4)
      }
    }
  }
  finder(3, 3)
  finder(size - 4, 3)
  finder(3, size - 4)
  if (version >= 2) {
    const count = Math.floor(version / 7) + 2
    const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2
    const positions = [6]
    for (let p = size - 7; positions.length < count; p -= step) positions.splice(1, 0, p)
    for (const y of positions) {
      for (const x of positions) {
        const onFinder = (x === 6 && y === 6) || (x === 6 && y === size - 7) || (x === size - 7 && y === 6)
        if (onFinder) continue
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) set(x + dx, y + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1)
        }
      }
    }
  }
  const drawFormat = (mask: number) => {
    // Level M is 00; BCH(15,5) with generator 0x537, then the fixed XOR pattern.
    const value = mask
    let rem = value
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537)
    const format = ((value << 10) | rem) ^ 0x5412
    const bit = (i: number) => ((format >>> i) & 1) === 1
    for (let i = 0; i <= 5; i++) set(8, i, bit(i))
    set(8, 7, bit(6))
    set(8, 8, bit(7))
    set(7, 8, bit(8))
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i))
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i))
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i))
    set(8, size - 8, true)
  }
  drawFormat(0) // reserves the format areas before data placement
  if (version >= 7) {
    let rem = version
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25)
    const info = (version << 12) | rem
    for (let i = 0; i < 18; i++) {
      const on = ((info >>> i) & 1) === 1
      const a = size - 11 + (i % 3)
      const b = Math.floor(i / 3)
      set(a, b, on)
      set(b, a, on)
    }
  }
  let next = 0
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5
    for (let vertical = 0; vertical < size; vertical++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j
        const upward = ((right + 1) & 2) === 0
        const y = upward ? size - 1 - vertical : vertical
        if (reserved[y]![x] || next >= codewords.length * 8) continue
        dark[y]![x] = ((codewords[next >>> 3]! >>> (7 - (next & 7))) & 1) === 1
        next++
      }
    }
  }

  // 5. The mask with the lowest penalty (runs, 2×2 blocks, finder look-alikes, dark balance).
  const maskRule = (mask: number, x: number, y: number) =>
    [
      (x + y) % 2 === 0,
      y % 2 === 0,
      x % 3 === 0,
      (x + y) % 3 === 0,
      (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
      ((x * y) % 2) + ((x * y) % 3) === 0,
      (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
      (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
    ][mask]!
  const applyMask = (mask: number) => {
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) if (!reserved[y]![x] && maskRule(mask, x, y)) dark[y]![x] = !dark[y]![x]
    }
  }
  const penalty = () => {
    let score = 0
    const lookAlike = [
      [true, false, true, true, true, false, true, false, false, false, false],
      [false, false, false, false, true, false, true, true, true, false, true],
    ]
    for (let pass = 0; pass < 2; pass++) {
      for (let a = 0; a < size; a++) {
        const line = Array.from({ length: size }, (_, b) => (pass === 0 ? dark[a]![b]! : dark[b]![a]!))
        let run = 1
        for (let b = 1; b <= size; b++) {
          if (b < size && line[b] === line[b - 1]) run++
          else {
            if (run >= 5) score += run - 2
            run = 1
          }
        }
        for (let b = 0; b + 11 <= size; b++) {
          if (lookAlike.some(pattern => pattern.every((on, k) => line[b + k] === on))) score += 40
        }
      }
    }
    let darkCount = 0
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        if (dark[y]![x]) darkCount++
        if (x + 1 < size && y + 1 < size) {
          const c = dark[y]![x]
          if (dark[y]![x + 1] === c && dark[y + 1]![x] === c && dark[y + 1]![x + 1] === c) score += 3
        }
      }
    }
    score += Math.floor(Math.abs(darkCount * 20 - size * size * 10) / (size * size)) * 10
    return score
  }
  let best = 0
  let bestScore = Infinity
  for (let mask = 0; mask < 8; mask++) {
    applyMask(mask)
    drawFormat(mask)
    const score = penalty()
    if (score < bestScore) {
      best = mask
      bestScore = score
    }
    applyMask(mask) // XOR again undoes it
  }
  applyMask(best)
  drawFormat(best)

  // 6. The drawing: one unit square per dark module, inside a 4-module quiet zone.
  let path = ''
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (dark[y]![x]) path += `M${x + 4} ${y + 4}h1v1h-1z`
  const side = size + 8
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  )
}
