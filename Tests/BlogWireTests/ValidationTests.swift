import Testing

@testable import BlogWire

@Suite("Field validation")
struct ValidationTests {
    private func usernameError(_ value: String) -> FieldError? {
        do { _ = try Username(value); return nil } catch { return error }
    }

    private func passwordError(_ value: String) -> FieldError? {
        do { _ = try FieldRules.password(value); return nil } catch { return error }
    }

    private func titleError(_ value: String) -> FieldError? {
        do { _ = try FieldRules.title(value); return nil } catch { return error }
    }

    private func contentError(_ value: String) -> FieldError? {
        do { _ = try FieldRules.content(value); return nil } catch { return error }
    }

    // MARK: Username

    @Test(arguments: [
        "a", "Z", "0", "9", "alice", "User", "Bob_99", "x-y", "a_", "a-", "1abc", "A_B-c_9",
        String(repeating: "a", count: 32), "0" + String(repeating: "_", count: 31),
    ])
    func validUsername(name: String) throws {
        let username = try Username(name)
        #expect(username.value == name)
        #expect(username.description == name)
    }

    @Test(arguments: [
        "../x", "a/b", "/etc", ".", "..", ".hidden", "a.b", "a\u{0}b", "\u{0}", "-a", "_a", "-", "_",
        "é", "café", "ａ", "İstanbul", "a b", " a", "a ", "a\t", "a\n", "a:b", "a\\b", "a%2e", "a;b",
        "<b>", "a&b", "a'b", "a\"b", "😀", "a\u{301}",
    ])
    func refusedUsername(name: String) {
        #expect(usernameError(name) == .usernameCharacters)
    }

    @Test func emptyUsername() {
        #expect(usernameError("") == .emptyUsername)
    }

    @Test func usernameLength() {
        #expect(usernameError(String(repeating: "a", count: 32)) == nil)
        #expect(usernameError(String(repeating: "a", count: 33)) == .usernameTooLong)
        #expect(usernameError(String(repeating: "a", count: 1000)) == .usernameTooLong)
        // Non-ASCII is refused whatever its length.
        #expect(usernameError(String(repeating: "é", count: 10)) != nil)
        #expect(usernameError(String(repeating: "é", count: 20)) != nil)
    }

    @Test func usernameKeyIsLowercase() throws {
        let name = try Username("AlIcE_X-9")
        #expect(name.key == "alice_x-9")
        #expect(name.value == "AlIcE_X-9")
        #expect(try Username("alice").key == Username("ALICE").key)
        #expect(try Username("alice").key != Username("alicia").key)
    }

    // MARK: Password

    @Test func passwordLengthInBytes() {
        #expect(passwordError("") == .emptyPassword)
        #expect(passwordError("x") == nil)
        #expect(passwordError(String(repeating: "p", count: 256)) == nil)
        #expect(passwordError(String(repeating: "p", count: 257)) == .passwordTooLong)
        // Bytes, not characters: 'é' is two bytes in UTF-8.
        #expect(passwordError(String(repeating: "é", count: 128)) == nil)
        #expect(passwordError(String(repeating: "é", count: 129)) == .passwordTooLong)
        // 64 four-byte characters fit, 65 do not.
        #expect(passwordError(String(repeating: "😀", count: 64)) == nil)
        #expect(passwordError(String(repeating: "😀", count: 65)) == .passwordTooLong)
    }

    @Test func passwordMayHoldAnyCharacters() throws {
        for password in ["a:b:c", " ", "pass word", "tab\there", "nul\u{0}byte", "ünïcödé", "😀", "\r\n", "[E]"] {
            #expect(try FieldRules.password(password) == password)
        }
    }

    // MARK: Title

    @Test func titleEmptyOrOnlyWhitespace() {
        for title in ["", " ", "   ", "\u{3000}", "\u{A0}", "\t", " \t "] {
            #expect(titleError(title) == .emptyTitle, "\(Array(title.unicodeScalars))")
        }
    }

    /// Characters are code points, as SQLite's length() and PostgreSQL's
    /// char_length() count them: the rule and the schema agree.
    @Test func titleLengthInCodePoints() throws {
        #expect(titleError(String(repeating: "t", count: 200)) == nil)
        #expect(titleError(String(repeating: "t", count: 201)) == .titleTooLong)
        // A flag is two code points: 100 fit, 101 do not.
        #expect(titleError(String(repeating: "🇨🇿", count: 100)) == nil)
        #expect(titleError(String(repeating: "🇨🇿", count: 101)) == .titleTooLong)
        // An e with a combining accent is two: 100 fit, 200 do not.
        #expect(titleError(String(repeating: "e\u{301}", count: 100)) == nil)
        #expect(titleError(String(repeating: "e\u{301}", count: 200)) == .titleTooLong)
        // Characters, not bytes: 200 two-byte letters and 200 multi-scalar emoji fit.
        #expect(titleError(String(repeating: "é", count: 200)) == nil)
        #expect(titleError(String(repeating: "👍🏽", count: 100)) == nil, "thumb and skin tone: two code points")
        #expect(titleError(String(repeating: "👍🏽", count: 101)) == .titleTooLong)
        #expect(titleError(String(repeating: "é", count: 201)) == .titleTooLong)
    }

    @Test func titleKeptVerbatim() throws {
        #expect(try FieldRules.title(" Spaced  title ") == " Spaced  title ")
        #expect(try FieldRules.title("Titulek článku <b>&") == "Titulek článku <b>&")
    }

    @Test(arguments: ["a\nb", "a\rb", "a\tb", "a\u{0}b", "\u{1B}[2J", "a\u{7F}", "line\r\n", "x\u{0B}", "x\u{0C}"])
    func titleRefusesControlCharacters(title: String) {
        #expect(titleError(title) == .controlCharacters)
    }

    // MARK: Content

    @Test func contentMayBeEmptyAndKeepsLineBreaks() throws {
        #expect(try FieldRules.content("") == "")
        let text = "line 1\nline 2\r\nline 3\rtab\there :colons: [E] <b>"
        #expect(try FieldRules.content(text) == text)
        let long = String(repeating: "x", count: 100_000)
        #expect(try FieldRules.content(long) == long)
    }

    @Test(arguments: ["\u{0}", "a\u{0}", "\u{1B}[31mred", "\u{7F}", "bell\u{7}", "\u{8}back", "\u{0B}", "\u{0C}", "\u{1F}"])
    func contentRefusesOtherControlCharacters(content: String) {
        #expect(contentError(content) == .controlCharacters)
    }
}
