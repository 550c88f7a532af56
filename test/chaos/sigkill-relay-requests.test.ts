// SIGKILL at random moments under the 'relay-requests' load (load-mixes.ts).
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('relay-requests', 12, 7)
