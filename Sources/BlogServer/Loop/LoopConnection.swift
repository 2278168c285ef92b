import BlogCore
import BlogSockets

/// What an event loop keeps of one connection: the socket, the machine
/// that decides, and the loop's own bookkeeping for it. Touched only on
/// its loop's thread.
final class LoopConnection {
    let socket: Socket
    /// The epoll token: slot and generation, so a late event or reply for
    /// a closed connection never reaches a new one in the same slot.
    let token: UInt64
    let peer: SocketAddress
    /// Whose budgets the connection spends: its address, or its IPv6 /64.
    let budgetKey: AddressKey
    /// Whether it counts against the connection limit (rejected ones do not).
    let admission: Admission
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

    init(socket: Socket, token: UInt64, peer: SocketAddress, budgetKey: AddressKey, admission: Admission,
         options: ConnectionMachine.Options) {
        self.socket = socket
        self.token = token
        self.peer = peer
        self.budgetKey = budgetKey
        self.admission = admission
        self.machine = ConnectionMachine(options: options)
        self.session = Session(peerAddress: peer.host)
        self.interest = .readable
    }
}
