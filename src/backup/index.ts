// Backups of a data dir: the archive (archive.ts) and the `[backup]` schedule (schedule.ts).
export { BackupError, createBackup, postgresBooksRefusal, restoreBackup, relaypayVersion, type BackupManifest, type ManifestFile } from './archive.js'
export { startBackupSchedule, scheduledArchiveName, type BackupSchedule } from './schedule.js'
