extension FirebaseUserInfo {
    /// What only an administrator sees (the `fbadmin` part of issue 16 fills this in: the stored password hash
    /// and salt for `batchGet`, `phoneNumber`, `passwordUpdatedAt`). Called by ``json(_:)`` for ``View/admin``
    /// after the client fields are set; it may replace them (the real `passwordHash` for the redacted one).
    func addAdminFields(to fields: inout [String: JSONValue]) {}
}
