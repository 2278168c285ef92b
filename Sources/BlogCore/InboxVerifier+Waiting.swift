import BlogSignatures
import Dispatch
import Synchronization

extension InboxVerifier {
    /// `verify` for a caller on a thread that may block (the page
    /// server's request thread): waits at most `seconds`, then gives up
    /// with `busy` (the key fetch goes on and serves the next request).
    public func verifyWaiting(_ request: SignedRequest, peerAddress: String,
                              within seconds: Double) -> Result<VerifiedSigner, InboxVerificationError> {
        let box = VerdictBox()
        let task = Task(executorPreference: OutgoingExecutor.shared) {
            do throws(InboxVerificationError) {
                box.finish(.success(try await self.verify(request, peerAddress: peerAddress)))
            } catch {
                box.finish(.failure(error))
            }
        }
        guard let result = box.wait(seconds) else {
            task.cancel()
            return .failure(.key(.busy))
        }
        return result
    }
}

/// One verdict, handed from its task to a waiting thread.
private final class VerdictBox: Sendable {
    private let result = Mutex<Result<VerifiedSigner, InboxVerificationError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<VerifiedSigner, InboxVerificationError>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait(_ seconds: Double) -> Result<VerifiedSigner, InboxVerificationError>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}
