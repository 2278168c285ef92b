import BlogSignatures
import Foundation
import Testing

@Suite struct HTTPDateTests {
    @Test func writesAndReadsIMFFixdate() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(TestKeys.now) == "Fri, 15 Jan 2027 08:00:00 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        // Every day of four years, there and back (leap days included).
        for day in stride(from: 1_700_000_000, to: 1_700_000_000 + 4 * 366 * 86_400, by: 86_400 + 3_661) {
            let date = Date(timeIntervalSince1970: Double(day))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test func refusesOtherForms() {
        for text in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
                     "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "", "Sun, 06 Nov 1994 08:49 GMT"] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }
}
