import NIOCore
import NIOSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The page server's certificate chain and private key, read from PEM
/// files, and read again by `reload()` (blogd does on SIGHUP, after a
/// renewal): connections made after a reload get the new certificate,
/// open ones keep theirs. A reload that fails keeps the old pair.
///
///     let tls = try TLSCertificates(certificate: "/etc/blogd/fullchain.pem",
///                                   key: "/etc/blogd/privkey.pem")
///     // ... after certbot renewed them:
///     try tls.reload()
public final class TLSCertificates: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: Mutex<NIOSSLContext>

    public init(certificate: String, key: String) throws(TLSError) {
        certificatePath = certificate
        keyPath = key
        current = Mutex(try Self.context(certificate: certificate, key: key))
    }

    /// Reads both files again; on failure nothing changes.
    public func reload() throws(TLSError) {
        let context = try Self.context(certificate: certificatePath, key: keyPath)
        current.withLock { $0 = context }
    }

    /// What a new connection uses.
    var context: NIOSSLContext { current.withLock { $0 } }

    private static func context(certificate: String, key: String) throws(TLSError) -> NIOSSLContext {
        // A FIFO or a device would block the read, and the signal loop with it.
        for path in [certificate, key] {
            var info = stat()
            guard stat(path, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw .unreadable(path: certificate, reason: "\(error)")
        }
        guard !chain.isEmpty else { throw .unreadable(path: certificate, reason: "no certificate in it") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw .unreadable(path: key, reason: "\(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                     privateKey: .privateKey(privateKey))
        // TLS 1.2 is the oldest any browser of today still speaks.
        configuration.minimumTLSVersion = .tlsv12
        // A client that never answers our close_notify would hold its
        // connection (and a place under the limits) for NIO's default 5 s.
        configuration.shutdownTimeout = .milliseconds(500)
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            // BoringSSL checks that the key is the certificate's.
            throw .mismatch(reason: "\(error)")
        }
    }
}

/// Why a certificate and key could not be used.
public enum TLSError: Error, Equatable, CustomStringConvertible {
    /// A file is missing, unreadable, or holds no PEM of the right kind.
    case unreadable(path: String, reason: String)
    /// Both read, but they do not make a server context (the key is not
    /// the certificate's).
    case mismatch(reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot use \(path): \(reason)"
        case .mismatch(let reason): "the key does not fit the certificate: \(reason)"
        }
    }
}
