import BlogModel

extension ForwardingStorage {
    func instanceKeyPEM() throws(StorageError) -> String? {
        try store.instanceKeyPEM()
    }
    func storeInstanceKeyPEM(_ privatePEM: String) throws(StorageError) -> String {
        try store.storeInstanceKeyPEM(privatePEM)
    }
}
