import BlogCore
import BlogSockets
import BlogLimits

/// What an event loop keeps of one connection: the socket, the machine
/// that decides, and the loop's own bookkeeping for it. Touched only on
/// its loop's thread.
final class LoopConnection {
    let socket: Socket
    /// The epoll token: slot and generation, so a late event or reply for
    /// a closed connection never reaches a new one in the same slot.
    let token: UInt64
    /// The socket's peer: the client, or the trusted proxy speaking for it.
    let peer: SocketAddress
    /// Whose budgets the connection spends: its client's address, or its
    /// IPv6 /64 (the peer's until a PROXY header names another).
    var budgetKey: AddressKey
    /// Whether it counts against the connection limit (rejected ones do
    /// not); nil once it holds no place at all (evicted past the limit of
    /// rejections).
    var admission: Admission?
    /// The address whose per-address place the connection holds: nil for
    /// a trusted proxy until its header names a client (and for good when
    /// it names none).
    var limitedKey: AddressKey?
    var machine: ConnectionMachine
    var session: Session
    var output = OutputQueue()
    /// What epoll watches the socket for right now.
    var interest: Epoll.Events
    /// A send found the socket's buffer full: wait until it is writable.
    var waitingToWrite = false
    /// Counted in the loop's connections left unread (open, not reading).
    var countedUnread = false
    /// Counted in the loop's connections holding back a refusal.
    var countedRefusing = false
    /// The machine's armed timer.
    var deadline: Moment?
    /// The earliest of this connection's entries in the loop's timer heap.
    var queuedDeadline: Moment?
    /// Since when it has waited for a message with none in hand (nil while
    /// one is handled or it is closing): eviction takes the longest waiting.
    var idleSince: Moment?
    /// Its place went to a newcomer: its `err:BUSY` is counted as an eviction.
    var evicted = false

    init(socket: Socket, token: UInt64, peer: SocketAddress, budgetKey: AddressKey, admission: Admission,
         limitedKey: AddressKey?, options: ConnectionMachine.Options, proxy: ConnectionMachine.ProxyRole) {
        self.socket = socket
        self.token = token
        self.peer = peer
        self.budgetKey = budgetKey
        self.admission = admission
        self.limitedKey = limitedKey
        self.machine = ConnectionMachine(options: options, proxy: proxy)
        self.session = Session(peerAddress: peer.host)
        self.interest = .readable
    }
}
