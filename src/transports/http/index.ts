export { startHttpServer, type HttpServer, type HttpServerOptions, type HttpLimits } from './server.js'
export type { HttpAnswer } from './dialects.js'
export { buildRoutes, type Route, type RouteTable } from './routes.js'
