import BrokerCore
import BrokerHTTP
import BrokerDrivers
import BrokerFirebase
import BrokerIdentity
import BrokerModel
import BrokerStorage
import Foundation

/// `broker serve`: the HTTP server. SIGTERM (or SIGINT) stops accepting, drains in-flight requests, exits 0.
enum ServeCommand {
    static func run(options: LaunchOptions, environment: [String: String]) async throws -> Int32 {
        let termination = TerminationSignals()
        let logger = Logger()
        let client = try CurlHTTPClient()
        let validation = Startup.validate(options: options, environment: environment, client: client, listenPort: nil)
        let config = try validation.validConfig()
        for warning in validation.warnings { logger.warning("configuration", metadata: ["field": warning.field, "problem": warning.message]) }
        let adminToken = try Startup.adminToken(environment)  // refused before anything is created
        let outboxCipher = try OutboxCipher.fromEnvironment(environment)  // a bad key is refused at start
        let openFiles = MicroHTTPDServer.raiseOpenFilesLimit(wanted: config.serverLimits.maxConnections + 64)
        // The ports are bound before anything is opened or created (the database file above all): a port in use
        // stops the start with nothing left behind. Connections wait in the backlog until `serve`.
        let server = MicroHTTPDServer(limits: config.serverLimits, trustedProxies: config.trustedProxies)
        let port = try server.listen(host: options.host, port: options.port)
        let firebase = config.firebaseCompat
        let firebaseServer = firebase.enabled
            ? MicroHTTPDServer(limits: config.serverLimits, trustedProxies: config.trustedProxies) : nil
        let firebasePort: Int
        let store: SQLBrokerStore
        let database: any SQLDatabase
        do {
            firebasePort = try firebaseServer?.listen(host: firebase.host, port: firebase.port) ?? 0
            (store, database) = try await Startup.openStore(
                options.database, environment: environment, events: config.events)
        } catch {
            await server.shutdown()
            await firebaseServer?.shutdown()
            throw error
        }
        let modules = try Startup.modules(config: config, client: client)
        let services = try await BrokerServices.make(
            config: config, store: store, httpClient: client, passwords: MigratingPasswordHasher(),
            adminToken: adminToken, logger: logger, cipher: outboxCipher, modules: modules)
        // The outbox: mails (with `mail` configured) and, as their handlers land, provider calls. No SMTP
        // connection is made until a mail is sent.
        let outbox = OutboxWorker(
            store: store, settings: config.outbox, cipher: outboxCipher, metrics: services.metrics, logger: logger)
        if let mail = config.mail {
            await outbox.register(
                .mail, MailOutboxHandler(mailer: CurlSMTPMailer(settings: mail), from: mail.from))
        }
        // What the modules outside the core deliver (Firebase's revocation, with a service account).
        for module in modules {
            for (kind, handler) in module.outboxHandlers { await outbox.register(kind, handler) }
        }
        // Registered with no endpoint configured too: an event queued for an endpoint since removed from the config
        // is then refused for good (audited `outbox_refused`, "delivered to nobody") instead of waiting for a
        // handler until it is given up.
        await outbox.register(.event, EventDeliveryHandler(settings: config.events, client: client))
        // What providers deliver through the outbox (a revocation, an unlink on deletion).
        for (kind, handler) in services.providers.outboxHandlers { await outbox.register(kind, handler) }
        services.doorbell.connect(outbox)
        // The main listener serves the apps' API, the admin API and console, and the operations routes.
        let app = BrokerApp(
            services: services,
            surfaces: [
                NativeSurface(services: services), AdminSurface(services: services),
                OperationsSurface(services: services),
            ])
        if let openFiles, openFiles < config.serverLimits.maxConnections + 64 {
            logger.warning(
                "the open-files limit is below server.maxConnections",
                metadata: [
                    "openFilesLimit": .int(Int64(openFiles)),
                    "maxConnections": .int(Int64(config.serverLimits.maxConnections)),
                ])
        }
        try server.serve(maxBodyBytes: 64 * 1024, refusals: { app.render($0) }) { request in
            await app.handle(request)
        }
        // The Firebase-compatible listener (contract section 11): its own server and port, serving only the
        // Firebase surface (and the Firebase routes are on no other listener).
        if let firebaseServer {
            let firebaseApp = BrokerApp(
                services: services,
                surfaces: [
                    FirebaseSurface(
                        services: services,
                        listener: FirebaseSurface.Listener(host: firebase.host, port: firebase.port == 0 ? nil : firebase.port))
                ])
            // What the server refuses itself (a body over the limit) is answered in Firebase's shape too.
            try firebaseServer.serve(
                maxBodyBytes: FirebaseSurface.maxBodyBytes, refusals: { firebaseApp.render($0) }
            ) { request in
                await firebaseApp.handle(request)
            }
            logger.info(
                "listening (Firebase-compatible)",
                metadata: [
                    "host": .string(firebase.host), "port": .integer(firebasePort),
                    "emulatorHost": "\(firebase.host.contains(":") ? "[\(firebase.host)]" : firebase.host):\(firebasePort)",
                    "projectId": .string(config.projectID),
                ])
        }
        // Compared with the bound port unless any free port was asked for (port 0, as tests do).
        for warning in ConfigValidation.issuerWarnings(config, listenPort: options.port == 0 ? nil : port) {
            logger.warning("configuration", metadata: ["field": warning.field, "problem": warning.message])
        }
        logger.info(
            "listening",
            metadata: [
                "host": .string(options.host), "port": .integer(port), "issuer": .string(config.issuer),
                "url": "http://\(options.host.contains(":") ? "[\(options.host)]" : options.host):\(port)",
                "database": .string(Startup.describeDatabase(options.database)),
                "providers": .string(services.providers.enabled.map(\.rawValue).joined(separator: ",")),
                "customTokens": config.firebaseServiceAccountFile == nil ? "off" : "on",
                "adminApi": adminToken == nil ? "off" : "on",
            ])
        let outboxRun = Task { await outbox.run() }
        // Housekeeping: expired refresh tokens and single-use marks, and inactive guests (one instance at a time,
        // by the sweep's lease), hourly.
        let guests = services.signIn.guests
        let instance = UUID().uuidString
        let housekeeping = Task {
            while !Task.isCancelled {
                if let purged = try? await store.purgeExpired(before: Date()), purged > 0 {
                    logger.info("purged expired sessions and marks", metadata: ["rows": .integer(purged)])
                }
                if let swept = try? await guests?.sweep(holder: instance), swept > 0 {
                    logger.info("deleted inactive guests", metadata: ["accounts": .integer(swept)])
                }
                try? await Task.sleep(for: .seconds(3600))
            }
        }
        let signal = await termination.wait()
        housekeeping.cancel()
        logger.info("draining", metadata: ["signal": signal])
        await server.shutdown()
        await firebaseServer?.shutdown()
        await outbox.stop()
        await outboxRun.value
        await client.shutdown()
        await database.close()
        logger.info("stopped")
        withExtendedLifetime(termination) {}  // a second signal during the drain still ends the process
        return 0
    }
}
