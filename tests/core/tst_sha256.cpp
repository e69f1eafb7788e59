// SHA-256 against the FIPS 180-4 example messages, and incremental hashing against one-shot.
#include "util/sha256.h"

#include <QRandomGenerator>
#include <QtTest>

class TestSha256 : public QObject {
    Q_OBJECT

private slots:
    void knownAnswers();
    void chunkingDoesNotMatter();
    void everyByteCounts();
};

void TestSha256::knownAnswers() {
    QCOMPARE(gconv::sha256_hex(""),
             std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(gconv::sha256_hex("abc"),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(gconv::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
             std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    gconv::Sha256 million;
    const std::string block(1000, 'a');
    for (int i = 0; i < 1000; ++i) million.update(block);
    QCOMPARE(million.hex_digest(),
             std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

void TestSha256::chunkingDoesNotMatter() {
    auto* random = QRandomGenerator::global();
    for (int round = 0; round < 20; ++round) {
        std::string data(std::size_t(random->bounded(1, 5000)), '\0');
        for (char& c : data) c = char(random->bounded(256));
        gconv::Sha256 pieces;
        std::size_t at = 0;
        while (at < data.size()) {
            const std::size_t take =
                std::min<std::size_t>(data.size() - at, random->bounded(1, 130));
            pieces.update(data.data() + at, take);
            at += take;
        }
        QCOMPARE(pieces.hex_digest(), gconv::sha256_hex(data));
    }
}

void TestSha256::everyByteCounts() {
    auto* random = QRandomGenerator::global();
    std::string data(std::size_t(random->bounded(56, 300)), '\0');
    for (char& c : data) c = char(random->bounded(256));
    const std::string base = gconv::sha256_hex(data);
    std::string changed = data;
    const auto at = std::size_t(random->bounded(int(data.size())));
    changed[at] = char(changed[at] ^ 1);
    QVERIFY(gconv::sha256_hex(changed) != base);
    QVERIFY(gconv::sha256_hex(data + '\0') != base);
}

QTEST_APPLESS_MAIN(TestSha256)
#include "tst_sha256.moc"
