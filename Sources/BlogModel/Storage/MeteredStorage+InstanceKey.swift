extension MeteredStorage {
    public func instanceKeyPEM() throws(StorageError) -> String? {
        try counted(try base.instanceKeyPEM())
    }
    public func storeInstanceKeyPEM(_ privatePEM: String) throws(StorageError) -> String {
        try counted(try base.storeInstanceKeyPEM(privatePEM))
    }
}
