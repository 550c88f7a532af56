export { startHttpServer, type HttpServer, type HttpServerOptions } from './server.js'
export { buildRoutes, type Route, type RouteTable } from './routes.js'
