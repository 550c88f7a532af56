// A plain zip archive (PKWARE APPNOTE 6.3: local headers, deflated data, central directory, end record), written
// with node:zlib because no zip library is installed. No zip64: an archive past 4 GiB or 65,535 entries is refused.
import fs from 'node:fs'
import { promisify } from 'node:util'
import zlib from 'node:zlib'

const deflateRaw = promisify(zlib.deflateRaw)

export interface ZipSource {
  /** Path inside the archive, with `/` separators. */
  name: string
  /** File on disk to read. */
  file: string
}

const localHeaderSignature = 0x04034b50
const centralHeaderSignature = 0x02014b50
const endSignature = 0x06054b50
const versionNeeded = 20 // 2.0: deflate
const versionMadeBy = (3 << 8) | 20 // made on Unix, so readers honour the permission bits below
const utf8NamesFlag = 0x0800
const deflated = 8
const regularFileMode = 0o100644
const maxZipValue = 0xffffffff

/** Writes `sources` to `out` (created or replaced); returns the number of entries. */
export async function writeZipArchive(out: string, sources: readonly ZipSource[]): Promise<number> {
  if (sources.length > 0xffff) throw new Error(`a zip without zip64 holds at most 65535 entries, not ${sources.length}`)
  const handle = await fs.promises.open(out, 'w', 0o600)
  try {
    const central: Buffer[] = []
    let offset = 0
    for (const source of sources) {
      const [data, stat] = await Promise.all([fs.promises.readFile(source.file), fs.promises.stat(source.file)])
      const packed = await deflateRaw(data)
      const name = Buffer.from(source.name, 'utf8')
      const crc = zlib.crc32(data)
      const { time, date } = dosDateTime(stat.mtime)
      if (offset > maxZipValue || packed.length > maxZipValue || data.length > maxZipValue) {
        throw new Error('the metrics archive would pass 4 GiB, which needs zip64')
      }

      const local = Buffer.alloc(30)
      local.writeUInt32LE(localHeaderSignature, 0)
      local.writeUInt16LE(versionNeeded, 4)
      local.writeUInt16LE(utf8NamesFlag, 6)
      local.writeUInt16LE(deflated, 8)
      local.writeUInt16LE(time, 10)
      local.writeUInt16LE(date, 12)
      local.writeUInt32LE(crc, 14)
      local.writeUInt32LE(packed.length, 18)
      local.writeUInt32LE(data.length, 22)
      local.writeUInt16LE(name.length, 26)
      local.writeUInt16LE(0, 28) // extra field length

      const entry = Buffer.alloc(46)
      entry.writeUInt32LE(centralHeaderSignature, 0)
      entry.writeUInt16LE(versionMadeBy, 4)
      entry.writeUInt16LE(versionNeeded, 6)
      entry.writeUInt16LE(utf8NamesFlag, 8)
      entry.writeUInt16LE(deflated, 10)
      entry.writeUInt16LE(time, 12)
      entry.writeUInt16LE(date, 14)
      entry.writeUInt32LE(crc, 16)
      entry.writeUInt32LE(packed.length, 20)
      entry.writeUInt32LE(data.length, 24)
      entry.writeUInt16LE(name.length, 28)
      entry.writeUInt16LE(0, 30) // extra field length
      entry.writeUInt16LE(0, 32) // comment length
      entry.writeUInt16LE(0, 34) // disk number
      entry.writeUInt16LE(0, 36) // internal attributes
      entry.writeUInt32LE((regularFileMode << 16) >>> 0, 38)
      entry.writeUInt32LE(offset, 42)
      central.push(entry, name)

      await handle.write(Buffer.concat([local, name, packed]))
      offset += local.length + name.length + packed.length
    }

    const directory = Buffer.concat(central)
    if (offset > maxZipValue) throw new Error('the metrics archive would pass 4 GiB, which needs zip64')
    const end = Buffer.alloc(22)
    end.writeUInt32LE(endSignature, 0)
    end.writeUInt16LE(0, 4) // this disk
    end.writeUInt16LE(0, 6) // disk of the central directory
    end.writeUInt16LE(sources.length, 8)
    end.writeUInt16LE(sources.length, 10)
    end.writeUInt32LE(directory.length, 12)
    end.writeUInt32LE(offset, 16)
    end.writeUInt16LE(0, 20) // comment length
    await handle.write(Buffer.concat([directory, end]))
    return sources.length
  } finally {
    await handle.close()
  }
}

/** MS-DOS time and date fields (local time, 2-second resolution, years 1980–2107). */
function dosDateTime(at: Date): { time: number; date: number } {
  const year = Math.min(2107, Math.max(1980, at.getFullYear()))
  return {
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | Math.floor(at.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
  }
}
