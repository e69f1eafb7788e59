// The filter language: every operator, precedence, literals, schemas, error columns and
// messages, and filter files.
#include "filter/filter_expression.h"
#include "filter/filter_set.h"

#include "filter_test_record.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <functional>
#include <optional>

using namespace gconv;
using namespace gconv::test;

namespace {

using Record = FilterTestRecord;

bool passes(const std::string& text, const FieldSource& record,
            const FieldSchema& schema = config_schema()) {
    FilterExpression filter = FilterExpression::parse(text);
    filter.bind(schema);
    return filter.matches(record);
}

enum class Stage { Parse, Bind, Evaluate, None };

struct Outcome {
    Stage stage = Stage::None;
    std::optional<FilterError> error;
};

// Runs the three stages and reports which one failed.
Outcome outcome_of(const std::string& text, const FieldSource& record,
                   const FieldSchema& schema = config_schema()) {
    Stage stage = Stage::Parse;
    try {
        FilterExpression filter = FilterExpression::parse(text);
        stage = Stage::Bind;
        filter.bind(schema);
        stage = Stage::Evaluate;
        filter.matches(record);
        return {};
    } catch (const FilterError& error) {
        return {stage, error};
    }
}

std::string num(double value) {
    return format_number(value);
}

double python_mod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

constexpr int kRounds = 200;

} // namespace

class TestFilter : public QObject {
    Q_OBJECT

private slots:
    void numberLiterals_data();
    void numberLiterals();
    void comparisonOperators();
    void arithmeticOperators();
    void unaryMinus();
    void modIsPythonStyle();
    void booleanOperatorsAndPrecedence();
    void arithmeticPrecedence();
    void comparisonChaining();
    void chainedOperandsAreReadOnce();
    void shortCircuit();
    void membership();
    void emptyAndTrailingCommaLists();
    void strings();
    void stringOrdering();
    void boolsActAsNumbers();
    void numberAgainstStringEquality();
    void canonicalText_data();
    void canonicalText();
    void errors_data();
    void errors();
    void errorMessageLayout();
    void caretAlignsUnderTabsAndUtf8();
    void rootsAndBareNames();
    void anyFieldsAreCheckedAtEvaluation();
    void fieldsUsed();
    void emptyFilterMatchesAll();
    void matchesNeedsBind();
    void failedBindKeepsExpression();
    void filterSetAndsLines();
    void filterSetErrorsNameFileAndLine();
    void filterFile();
};

void TestFilter::numberLiterals_data() {
    QTest::addColumn<QString>("literal");
    QTest::addColumn<double>("value");
    QTest::newRow("integer") << "128" << 128.0;
    QTest::newRow("float") << "2.75" << 2.75;
    QTest::newRow("leading dot") << ".5" << 0.5;
    QTest::newRow("trailing dot") << "5." << 5.0;
    QTest::newRow("exponent") << "1e3" << 1000.0;
    QTest::newRow("upper exponent") << "2E2" << 200.0;
    QTest::newRow("signed exponent") << "25e-1" << 2.5;
    QTest::newRow("plus exponent") << "1.5e+2" << 150.0;
    QTest::newRow("dot exponent") << ".25e1" << 2.5;
}

void TestFilter::numberLiterals() {
    QFETCH(QString, literal);
    QFETCH(double, value);
    for (int round = 0; round < 20; ++round) {
        Record record = random_record();
        record.tile_k = value * random_int(1, 9);
        const double factor = record.tile_k / value;
        const std::string text = "tile_k == " + literal.toStdString() + " * " + num(factor);
        QVERIFY2(passes(text, record), text.c_str());
        QVERIFY(!passes("tile_k != " + literal.toStdString() + " * " + num(factor), record));
    }
}

void TestFilter::comparisonOperators() {
    const std::vector<std::pair<std::string, std::function<bool(double, double)>>> ops = {
        {"==", std::equal_to<>()},   {"!=", std::not_equal_to<>()}, {"<", std::less<>()},
        {"<=", std::less_equal<>()}, {">", std::greater<>()},       {">=", std::greater_equal<>()},
    };
    for (int round = 0; round < kRounds; ++round) {
        const Record record = random_record();
        for (const auto& [op, reference] : ops) {
            const std::string text = "c.tile_m " + op + " c.tile_n";
            QCOMPARE(passes(text, record), reference(record.tile_m, record.tile_n));
            const double literal = random_int(1, 8) * 16;
            QCOMPARE(passes("tile_m " + op + " " + num(literal), record),
                     reference(record.tile_m, literal));
        }
    }
}

void TestFilter::arithmeticOperators() {
    for (int round = 0; round < kRounds; ++round) {
        const Record r = random_record();
        const double m = r.tile_m, n = r.tile_n, k = r.tile_k;
        const std::vector<std::pair<std::string, double>> cases = {
            {"tile_m + tile_n", m + n},
            {"tile_m - tile_n", m - n},
            {"tile_m * tile_k", m * k},
            {"tile_m / tile_k", m / k},
            {"tile_m % tile_k", python_mod(m, k)},
            {"tile_k / 3", k / 3},
            {"tile_m % 7.5", python_mod(m, 7.5)},
        };
        for (const auto& [expression, expected] : cases) {
            const std::string text = expression + " == " + num(expected);
            QVERIFY2(passes(text, r), text.c_str());
            QVERIFY(!passes(expression + " == " + num(expected + 1), r));
        }
    }
}

void TestFilter::unaryMinus() {
    for (int round = 0; round < kRounds; ++round) {
        const Record r = random_record();
        const double m = r.tile_m, n = r.tile_n, k = r.tile_k;
        QVERIFY(passes("-tile_m == " + num(-m), r));
        QVERIFY(passes("- -tile_m == " + num(m), r));
        QVERIFY(passes("tile_n - -tile_m == " + num(n + m), r));
        QVERIFY(passes("-tile_m * tile_k == " + num(-m * k), r));
        QVERIFY(passes("-tile_m % tile_k == " + num(python_mod(-m, k)), r));
        QVERIFY(passes("-(tile_m - tile_n) == " + num(n - m), r));
        QVERIFY(passes("-tile_k < 0", r));
    }
}

void TestFilter::modIsPythonStyle() {
    const std::vector<std::tuple<int, int, int>> cases = {
        {7, 3, 1}, {-7, 3, 2}, {7, -3, -2}, {-7, -3, -1}, {6, 3, 0}};
    for (const auto& [a, b, expected] : cases) {
        const int scale = random_int(1, 50);
        Record r = random_record();
        r.tile_m = a * scale;
        r.tile_n = b * scale;
        const std::string text = "tile_m % tile_n == " + num(expected * scale);
        QVERIFY2(passes(text, r), text.c_str());
    }
}

void TestFilter::booleanOperatorsAndPrecedence() {
    for (int round = 0; round < kRounds; ++round) {
        Record r = random_record();
        r.tile_m = random_int(1, 3);
        r.tile_n = random_int(1, 3);
        r.tile_k = random_int(1, 3);
        const bool a = r.tile_m == 1, b = r.tile_n == 2, c = r.tile_k == 3, p = r.pad_m;
        QCOMPARE(passes("not tile_m == 1 or tile_n == 2 and tile_k == 3", r), !a || (b && c));
        QCOMPARE(passes("(not tile_m == 1 or tile_n == 2) and tile_k == 3", r), (!a || b) && c);
        QCOMPARE(passes("not (tile_m == 1 or tile_n == 2)", r), !(a || b));
        QCOMPARE(passes("tile_m == 1 or tile_n == 2 or tile_k == 3", r), a || b || c);
        QCOMPARE(passes("tile_m == 1 and tile_n == 2 and tile_k == 3", r), a && b && c);
        QCOMPARE(passes("not not pad_m", r), p);
        QCOMPARE(passes("not pad_m and tile_m == 1", r), !p && a);
        QCOMPARE(passes("pad_m or tile_m == 1 and not tile_n == 2", r), p || (a && !b));
    }
}

void TestFilter::arithmeticPrecedence() {
    for (int round = 0; round < kRounds; ++round) {
        const Record r = random_record();
        const double m = r.tile_m, n = r.tile_n, k = r.tile_k;
        const std::vector<std::pair<std::string, double>> cases = {
            {"tile_m + tile_n * tile_k", m + n * k},
            {"(tile_m + tile_n) * tile_k", (m + n) * k},
            {"tile_m - tile_n - tile_k", (m - n) - k},
            {"tile_m / tile_k * tile_n", (m / k) * n},
            {"tile_m - tile_n % tile_k", m - python_mod(n, k)},
            {"tile_m * -tile_k + tile_n", m * -k + n},
            {"tile_m - tile_n * tile_k % 5", m - python_mod(n * k, 5)},
        };
        for (const auto& [expression, expected] : cases) {
            const std::string text = expression + " == " + num(expected);
            QVERIFY2(passes(text, r), text.c_str());
        }
        // Comparison binds looser than arithmetic: a + b > c is (a + b) > c.
        QCOMPARE(passes("tile_m + tile_n > tile_k * 20", r), m + n > k * 20);
    }
}

void TestFilter::comparisonChaining() {
    for (int round = 0; round < kRounds; ++round) {
        const Record r = random_record();
        const double m = r.tile_m, n = r.tile_n, k = r.tile_k;
        QCOMPARE(passes("1 < c.tile_m <= 64", r), 1 < m && m <= 64);
        QCOMPARE(passes("tile_k < tile_m < tile_n", r), k < m && m < n);
        QCOMPARE(passes("tile_m == tile_n == 64", r), m == n && n == 64);
        QCOMPARE(passes("tile_m >= tile_n != tile_k", r), m >= n && n != k);
        QCOMPARE(passes("16 <= tile_m < tile_n + 1 <= 129", r),
                 16 <= m && m < n + 1 && n + 1 <= 129);
    }
}

void TestFilter::chainedOperandsAreReadOnce() {
    Record r = random_record();
    r.tile_k = 1;
    r.tile_m = random_int(2, 50);
    r.tile_n = r.tile_m + random_int(1, 50);
    QVERIFY(passes("tile_k < tile_m < tile_n", r));
    QCOMPARE(r.reads[kTileK], 1);
    QCOMPARE(r.reads[kTileM], 1);
    QCOMPARE(r.reads[kTileN], 1);
    // A false link ends the chain: the rest is not read.
    r.reads = {};
    QVERIFY(!passes("tile_m < tile_k < tile_n", r));
    QCOMPARE(r.reads[kTileN], 0);
}

void TestFilter::shortCircuit() {
    Record r = random_record();
    // tile_m - tile_m is 0: the right side would divide by zero if it ran.
    QVERIFY(!passes("tile_m != tile_m and tile_n / (tile_m - tile_m) > 1", r));
    QVERIFY(passes("tile_m == tile_m or tile_n / (tile_m - tile_m) > 1", r));
    QCOMPARE(r.reads[kPipeline], 0);
    QVERIFY(passes("tile_m == tile_m or pipeline == 'x'", r));
    QCOMPARE(r.reads[kPipeline], 0);
}

void TestFilter::membership() {
    static const std::vector<std::string> pipelines = {"compv3", "compv4", "compv5", "mem",
                                                       "basic_v1"};
    for (int round = 0; round < kRounds; ++round) {
        const Record r = random_record();
        const std::string first = pipelines[random_int(0, 4)];
        const std::string second = pipelines[random_int(0, 4)];
        const bool in = r.pipeline == first || r.pipeline == second;
        QCOMPARE(passes("c.pipeline in ['" + first + "', \"" + second + "\"]", r), in);
        QCOMPARE(passes("c.pipeline not in ['" + first + "', \"" + second + "\"]", r), !in);
        const double x = random_int(1, 8) * 16;
        QCOMPARE(passes("tile_m in [" + num(x) + ", tile_n, 2 * tile_k]", r),
                 r.tile_m == x || r.tile_m == r.tile_n || r.tile_m == 2 * r.tile_k);
        QCOMPARE(passes("tile_m + 16 in [" + num(x) + "]", r), r.tile_m + 16 == x);
        // `not x in [...]` is `not (x in [...])`, the same as `x not in [...]`.
        QCOMPARE(passes("not tile_m in [" + num(x) + "]", r), r.tile_m != x);
        QCOMPARE(passes("tile_m in [" + num(x) + "] and pad_m", r), r.tile_m == x && r.pad_m);
        // Membership uses ==: a number is never in a list of strings.
        QVERIFY(!passes("tile_m in ['" + num(r.tile_m) + "']", r));
        QVERIFY(passes("pad_m in [True, False]", r));
    }
}

void TestFilter::emptyAndTrailingCommaLists() {
    const Record r = random_record();
    QVERIFY(!passes("tile_m in []", r));
    QVERIFY(passes("tile_m not in []", r));
    QVERIFY(passes("tile_m in [" + num(r.tile_m) + ",]", r));
    QVERIFY(!passes("tile_m in [" + num(r.tile_m + 1) + ", ]", r));
}

void TestFilter::strings() {
    Record r = random_record();
    const std::string word = random_word(1, 8);
    r.name = word + "'s \"x\"\t\\" + word + "\n";
    QVERIFY(passes("name == '" + word + "\\'s \"x\"\\t\\\\" + word + "\\n'", r));
    QVERIFY(passes("name == \"" + word + "'s \\\"x\\\"\\t\\\\" + word + "\\n\"", r));
    QVERIFY(!passes("name == '" + word + "'", r));
    r.name = word;
    QVERIFY(passes("name == '" + word + "' == \"" + word + "\"", r));
    QVERIFY(passes("name != ''", r));
    r.pipeline = "compv5";
    QVERIFY(passes("c.tile_n >= 0 and c.pipeline == 'compv5'", r));
}

void TestFilter::stringOrdering() {
    for (int round = 0; round < kRounds; ++round) {
        Record r = random_record();
        const std::string other = random_word(1, 6);
        r.name = random_word(1, 6);
        QCOMPARE(passes("name < '" + other + "'", r), r.name < other);
        QCOMPARE(passes("name >= '" + other + "'", r), r.name >= other);
        QCOMPARE(passes("'" + other + "' <= name", r), other <= r.name);
    }
}

void TestFilter::boolsActAsNumbers() {
    for (int round = 0; round < 20; ++round) {
        const Record r = random_record();
        const int p = r.pad_m ? 1 : 0;
        QCOMPARE(passes("pad_m", r), r.pad_m);
        QCOMPARE(passes("pad_m == True", r), r.pad_m);
        QCOMPARE(passes("pad_m == true", r), r.pad_m);
        QCOMPARE(passes("pad_m != False", r), r.pad_m);
        QCOMPARE(passes("pad_m == false", r), !r.pad_m);
        QCOMPARE(passes("pad_m == 1", r), r.pad_m);
        QVERIFY(passes("pad_m + tile_k == " + num(p + r.tile_k), r));
        QCOMPARE(passes("pad_m > 0", r), r.pad_m);
        QVERIFY(passes("True and not False", r));
    }
}

void TestFilter::numberAgainstStringEquality() {
    const Record r = random_record();
    QVERIFY(!passes("tile_m == '" + num(r.tile_m) + "'", r));
    QVERIFY(passes("tile_m != '" + num(r.tile_m) + "'", r));
    QVERIFY(!passes("pipeline == " + num(r.tile_m), r));
    QVERIFY(!passes("pad_m == 'True'", r));
}

void TestFilter::canonicalText_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical");
    QTest::newRow("not/or/and") << "not a == 1 or b == 2 and c == 3"
                                << "((not (a == 1)) or ((b == 2) and (c == 3)))";
    QTest::newRow("arithmetic") << "a + b * c - d / e % f > 0"
                                << "(((a + (b * c)) - ((d / e) % f)) > 0)";
    QTest::newRow("unary minus") << "-a * -b == - - c"
                                 << "(((-a) * (-b)) == (-(-c)))";
    QTest::newRow("chain") << "1 < c.tile_m <= 128"
                           << "(1 < c.tile_m <= 128)";
    QTest::newRow("not in") << "x not in [1, 'a', y + 1] or not z in []"
                            << "((x not in [1, 'a', (y + 1)]) or (not (z in [])))";
    QTest::newRow("parentheses") << "(a or b) and c"
                                 << "((a or b) and c)";
    QTest::newRow("literals") << "t == True and f == false and s == \"it's\" and n == 1.5e3"
                              << "((t == True) and (f == False) and (s == 'it\\'s') and "
                                 "(n == 1500))";
    QTest::newRow("membership binds tighter than not") << "not a + 1 in [2] and b"
                                                       << "((not ((a + 1) in [2])) and b)";
}

void TestFilter::canonicalText() {
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    const auto filter = FilterExpression::parse(text.toStdString());
    QCOMPARE(QString::fromStdString(filter.canonical_text()), canonical);
    // The canonical form parses back to itself.
    const auto again = FilterExpression::parse(filter.canonical_text());
    QCOMPARE(again.canonical_text(), filter.canonical_text());
}

void TestFilter::errors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("stage");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("reason");
    const auto parse = static_cast<int>(Stage::Parse);
    const auto bind = static_cast<int>(Stage::Bind);
    const auto eval = static_cast<int>(Stage::Evaluate);

    QTest::newRow("unterminated string") << "name == 'abc" << parse << 8 << "unterminated string";
    QTest::newRow("unterminated double")
        << "a == 1 or name == \"x" << parse << 18 << "unterminated string: no closing \"";
    QTest::newRow("escape at end") << "name == 'ab\\" << parse << 8 << "unterminated string";
    QTest::newRow("unknown escape") << "name == 'a\\qb'" << parse << 10 << "unknown escape '\\q'";
    QTest::newRow("unexpected token") << "tile_m == == 3" << parse << 10 << "found '=='";
    QTest::newRow("missing operand at end") << "tile_m >" << parse << 8 << "unexpected end";
    QTest::newRow("never closed") << "(tile_m == 1 and tile_n == 2" << parse << 0
                                  << "'(' was never closed";
    QTest::newRow("missing )") << "(tile_m == 1 tile_n" << parse << 13 << "expected ')'";
    QTest::newRow("unmatched )") << "tile_m == 1)" << parse << 11 << "unmatched ')'";
    QTest::newRow("trailing garbage")
        << "tile_m == 1 2" << parse << 12 << "unexpected number '2' after a complete expression";
    QTest::newRow("trailing name") << "tile_m == 1 pad_m" << parse << 12 << "name 'pad_m'";
    QTest::newRow("is") << "pad_m is True" << parse << 6 << "'is' is not supported";
    QTest::newRow("assignment") << "tile_m = 1" << parse << 7 << "use '=='";
    QTest::newRow("&&") << "pad_m && pad_m" << parse << 6 << "'&&' is not supported; use 'and'";
    QTest::newRow("||") << "pad_m || pad_m" << parse << 6 << "use 'or'";
    QTest::newRow("!") << "!pad_m" << parse << 0 << "use 'not'";
    QTest::newRow("power") << "tile_m ** 2 > 1" << parse << 7 << "'**'";
    QTest::newRow("floor division") << "tile_m // 2 > 1" << parse << 7 << "'//'";
    QTest::newRow("function call")
        << "len(name) > 3" << parse << 3 << "function calls are not supported";
    QTest::newRow("indexing") << "name[0] == 'a'" << parse << 4 << "indexing is not supported";
    QTest::newRow("list outside in") << "[1] == tile_m" << parse << 0 << "only allowed after 'in'";
    QTest::newRow("in needs list") << "tile_m in tile_n" << parse << 10 << "expected '['";
    QTest::newRow("list never closed")
        << "tile_m in [1, 2" << parse << 10 << "'[' was never closed";
    QTest::newRow("list separator") << "tile_m in [1 2]" << parse << 13 << "expected ',' or ']'";
    QTest::newRow("chained in") << "tile_m in [1] == True" << parse << 14 << "cannot be chained";
    QTest::newRow("in after chain") << "1 < tile_m in [1]" << parse << 11 << "cannot be chained";
    QTest::newRow("bad character") << "tile_m > 1 @ 2" << parse << 11 << "unexpected character '@'";
    QTest::newRow("control byte") << "tile_m >\x01 1" << parse << 8 << "unexpected byte 0x01";
    QTest::newRow("inline comment") << "tile_m > 1 # big" << parse << 11 << "'#' comments";
    QTest::newRow("bad number") << "tile_m > 12abc" << parse << 9 << "invalid number '12abc'";
    QTest::newRow("bad exponent") << "tile_m > 1e" << parse << 9 << "exponent needs digits";
    QTest::newRow("huge number") << "tile_m > 1e999" << parse << 9 << "out of range";
    QTest::newRow("nested attribute") << "c.tile_m.x > 1" << parse << 8 << "nested attribute";
    QTest::newRow("dot without name") << "c. > 1" << parse << 3 << "expected a field name";
    QTest::newRow("not a condition")
        << "c.tile_m + 1" << parse << 0 << "filter must be a condition";
    QTest::newRow("field not a condition") << "tile_m" << bind << 0 << "must be a condition";
    QTest::newRow("literal not a condition") << "1 + 2" << parse << 0 << "must be a condition";
    QTest::newRow("and operand") << "pad_m and tile_m" << bind << 10
                                 << "'and' needs conditions (a comparison, an 'in' test or a "
                                    "bool), got number field 'tile_m'";
    QTest::newRow("not operand") << "not (tile_m - 1)" << parse << 4
                                 << "got a number: '(tile_m - 1)'";
    QTest::newRow("unknown field") << "c.tile_q > 3" << bind << 0
                                   << "unknown field 'c.tile_q'; did you mean 'c.tile_m'? "
                                      "(known: tile_m, tile_n, tile_k, pipeline, name, pad_m, "
                                      "latency)";
    QTest::newRow("unknown field later")
        << "tile_m > 1 and zz == 2" << bind << 15 << "unknown field 'zz'";
    QTest::newRow("wrong root") << "x.tile_m > 1" << bind << 0
                                << "unknown name 'x' in 'x.tile_m': write c.tile_m";
    QTest::newRow("root alone") << "pad_m and c" << bind << 10 << "unknown field 'c'";
    QTest::newRow("type mismatch") << "c.pipeline > 3" << bind << 11
                                   << "cannot order string field 'c.pipeline' against number 3 "
                                      "with '>'";
    QTest::newRow("type mismatch literal") << "'a' <= 3" << parse << 4 << "cannot order";
    QTest::newRow("string arithmetic")
        << "name + 1 > 3" << bind << 5 << "'+' needs numbers, got string field 'name'";
    QTest::newRow("string negation") << "-pipeline == 3" << bind << 0 << "'-' needs numbers";
    QTest::newRow("division by zero") << "tile_m / (tile_n - tile_n) > 1" << eval << 7
                                      << "division by zero: '(tile_n - tile_n)' is 0";
    QTest::newRow("modulo by zero")
        << "tile_m > 0 and 7 % (tile_k * 0) == 1" << eval << 17 << "modulo by zero";
    QTest::newRow("nested too deeply")
        << QString(150, '(') + "1" << parse << 100 << "nested too deeply";
}

void TestFilter::errors() {
    QFETCH(QString, text);
    QFETCH(int, stage);
    QFETCH(int, column);
    QFETCH(QString, reason);
    const auto outcome = outcome_of(text.toStdString(), random_record());
    QVERIFY2(outcome.error.has_value(), "no error was raised");
    const FilterError& error = *outcome.error;
    QVERIFY2(QString::fromStdString(error.reason).contains(reason), error.what());
    QCOMPARE(static_cast<int>(outcome.stage), stage);
    QCOMPARE(error.column, column);
    QCOMPARE(QString::fromStdString(error.expression), text);
    // The message ends with the expression and a caret under the column.
    const QString message = QString::fromStdString(error.what());
    const QStringList lines = message.split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith("filter: "));
    QCOMPARE(lines[2], QString(2 + column, ' ') + "^");
}

void TestFilter::errorMessageLayout() {
    const auto outcome = outcome_of("c.pipeline == 'compv5' and c.tile_q > 3", random_record(),
                                    strict_config_schema());
    QVERIFY(outcome.error.has_value());
    QCOMPARE(std::string(outcome.error->what()),
             std::string("filter: unknown field 'c.tile_q'; did you mean 'c.tile_m'? (known: "
                         "tile_m, tile_n, tile_k, pipeline, name, pad_m, latency)\n"
                         "  c.pipeline == 'compv5' and c.tile_q > 3\n") +
                 std::string(2 + 27, ' ') + "^");
    const auto number = outcome_of("c.pipeline >= 128", random_record(), strict_config_schema());
    QVERIFY(number.error.has_value());
    QVERIFY2(number.error->reason.find("number 128 ") != std::string::npos, number.error->what());
}

void TestFilter::caretAlignsUnderTabsAndUtf8() {
    const auto outcome = outcome_of("name == '\xC3\xA9\xC3\xA9'\tand zz", random_record());
    QVERIFY(outcome.error.has_value());
    QCOMPARE(outcome.error->column, 19);
    const QStringList lines = QString::fromUtf8(outcome.error->what()).split('\n');
    QCOMPARE(lines.size(), 3);
    // 8 + 4 characters before the tab, the tab, then 4 for "and ".
    QCOMPARE(lines[2], QString("  ") + QString(12, ' ') + "\t" + QString(4, ' ') + "^");
}

void TestFilter::rootsAndBareNames() {
    Record r = random_record();
    r.tile_m = random_int(2, 9) * 16;
    const std::string threshold = num(r.tile_m - 1);
    QVERIFY(passes("c.tile_m > " + threshold, r, config_schema()));
    QVERIFY(passes("tile_m > " + threshold, r, config_schema()));
    QVERIFY(passes("c.tile_m > " + threshold, r, strict_config_schema()));
    QVERIFY(passes("tile_m > " + threshold, r, row_schema()));

    const auto bare = outcome_of("tile_m > 1", r, strict_config_schema());
    QVERIFY(bare.error.has_value());
    QCOMPARE(bare.error->reason, std::string("a bare name is not accepted here: write c.tile_m"));
    const auto alone = outcome_of("c > 1", r, strict_config_schema());
    QVERIFY(alone.error.has_value());
    QVERIFY2(alone.error->reason.find("'c' alone is not a field") != std::string::npos,
             alone.error->what());
    const auto prefixed = outcome_of("tflops > 1 or c.tile_m > 1", r, row_schema());
    QVERIFY(prefixed.error.has_value());
    QCOMPARE(prefixed.error->column, 0); // tflops: unknown in this schema, found first
    const auto rooted = outcome_of("c.tile_m > 1", r, row_schema());
    QVERIFY(rooted.error.has_value());
    QVERIFY2(rooted.error->reason.find("written without a prefix here; write tile_m") !=
                 std::string::npos,
             rooted.error->what());

    auto two_roots = config_schema().allow_root("k");
    QVERIFY(passes("k.tile_m == c.tile_m", r, two_roots));
    const auto wrong = outcome_of("x.tile_m > 1", r, two_roots);
    QVERIFY(wrong.error.has_value());
    QVERIFY2(wrong.error->reason.find("write c.tile_m or k.tile_m") != std::string::npos,
             wrong.error->what());
    // Suggestions ignore case.
    const auto upper = outcome_of("TILE_N > 1", r, row_schema());
    QVERIFY(upper.error.has_value());
    QVERIFY2(upper.error->reason.find("did you mean 'tile_n'") != std::string::npos,
             upper.error->what());
}

void TestFilter::anyFieldsAreCheckedAtEvaluation() {
    Record r = random_record();
    const double latency = random_int(1, 100) / 4.0;
    r.latency = FilterValue::from_number(latency);
    QVERIFY(passes("latency > " + num(latency - 1), r));
    QVERIFY(passes("latency * 4 == " + num(latency * 4), r));

    r.latency = FilterValue::from_string("N/A");
    QVERIFY(passes("latency == 'N/A'", r));
    QVERIFY(!passes("latency == " + num(latency), r));
    const auto ordered = outcome_of("tile_m > 0 and latency > 3", r);
    QVERIFY(ordered.error.has_value());
    QCOMPARE(ordered.stage, Stage::Evaluate);
    QCOMPARE(ordered.error->column, 23);
    QVERIFY2(ordered.error->reason.find("cannot order string 'N/A' against number 3") !=
                 std::string::npos,
             ordered.error->what());
    const auto arithmetic = outcome_of("latency * 2 > 3", r);
    QVERIFY(arithmetic.error.has_value());
    QCOMPARE(arithmetic.error->column, 8);

    r.latency = FilterValue::from_number(latency);
    const auto condition = outcome_of("pad_m or latency", r);
    if (!r.pad_m) {
        QVERIFY(condition.error.has_value());
        QCOMPARE(condition.stage, Stage::Evaluate);
        QCOMPARE(condition.error->column, 9);
        QVERIFY2(condition.error->reason.find("'or' needs a condition, got number " +
                                              num(latency)) != std::string::npos,
                 condition.error->what());
    } else {
        QVERIFY(!condition.error.has_value()); // short-circuited
    }
    r.latency = FilterValue::from_bool(true);
    QVERIFY(passes("latency", r));
}

void TestFilter::fieldsUsed() {
    const auto filter = FilterExpression::parse(
        "c.pipeline == 'mem' and (tile_m > 1 or c.tile_m < tile_k) and pipeline in [name]");
    const std::vector<std::string> expected = {"pipeline", "tile_m", "tile_k", "name"};
    QCOMPARE(filter.fields_used(), expected);
    QVERIFY(FilterExpression::parse("1 < 2").fields_used().empty());
}

void TestFilter::emptyFilterMatchesAll() {
    for (const char* text : {"", "   ", "\t\n "}) {
        const auto filter = FilterExpression::parse(text);
        QVERIFY(filter.empty());
        QVERIFY(filter.matches(random_record())); // no bind needed
        QCOMPARE(filter.canonical_text(), std::string());
    }
    QVERIFY(FilterExpression().matches(random_record()));
}

void TestFilter::matchesNeedsBind() {
    const auto filter = FilterExpression::parse("tile_m > 1");
    QVERIFY_THROWS_EXCEPTION(std::logic_error, filter.matches(random_record()));
    // Without fields there is nothing to bind.
    QVERIFY(FilterExpression::parse("2 > 1").matches(random_record()));
}

void TestFilter::failedBindKeepsExpression() {
    auto filter = FilterExpression::parse("tflops > 1");
    QVERIFY_THROWS_EXCEPTION(FilterError, filter.bind(config_schema()));
    QVERIFY(!filter.is_bound());
    auto with_tflops = filter_test_fields();
    with_tflops.push_back({"tflops", FieldKind::Number});
    struct Row final : FieldSource {
        double tflops = 0;
        FilterValue value(std::size_t slot) const override {
            return slot == 7 ? FilterValue::from_number(tflops) : FilterValue::from_number(-1);
        }
    } row;
    row.tflops = random_int(2, 500);
    filter.bind(FieldSchema(with_tflops));
    QVERIFY(filter.matches(row));
    row.tflops = 1;
    QVERIFY(!filter.matches(row));
}

void TestFilter::filterSetAndsLines() {
    const std::string text = "# large tiles on compv5\n"
                             "\n"
                             "c.tile_n >= 64\r\n"
                             "   # indented comment\n"
                             "  \t \n"
                             "c.pipeline in ['compv5', 'mem']\n"
                             "not c.pad_m or c.tile_k > 4";
    FilterSet set;
    set.add_lines(text, "filters.txt");
    QCOMPARE(set.expressions().size(), std::size_t{3});
    QCOMPARE(set.expressions()[1].origin().line, 6);
    set.add("c.tile_m <= 96");
    set.bind(config_schema());
    int passed = 0;
    for (int round = 0; round < 500; ++round) {
        const Record r = random_record();
        const bool expected = r.tile_n >= 64 && (r.pipeline == "compv5" || r.pipeline == "mem") &&
                              (!r.pad_m || r.tile_k > 4) && r.tile_m <= 96;
        QCOMPARE(set.matches(r), expected);
        passed += expected;
    }
    QVERIFY(passed > 0);
    const std::vector<std::string> fields = {"tile_n", "pipeline", "pad_m", "tile_k", "tile_m"};
    QCOMPARE(set.fields_used(), fields);
    QVERIFY(FilterSet().matches(random_record()));
}

void TestFilter::filterSetErrorsNameFileAndLine() {
    FilterSet parse_set;
    try {
        parse_set.add_lines("# header\nc.tile_m > 1\n\nc.tile_n > (2\n", "big.filter");
        QFAIL("no error");
    } catch (const FilterError& error) {
        QCOMPARE(error.origin.file, std::string("big.filter"));
        QCOMPARE(error.origin.line, 4);
        QCOMPARE(error.column, 11);
        QCOMPARE(std::string(error.what()), std::string("filter (big.filter, line 4): '(' was "
                                                        "never closed\n  c.tile_n > (2\n") +
                                                std::string(2 + 11, ' ') + "^");
    }
    FilterSet bind_set;
    bind_set.add_lines("c.tile_m > 1\n# note\nc.pipeline > 'a'\nc.pipelin == 'x'\n", "f.txt");
    try {
        bind_set.bind(config_schema());
        QFAIL("no error");
    } catch (const FilterError& error) {
        QCOMPARE(error.origin.line, 4);
        QCOMPARE(error.column, 0);
        QVERIFY2(std::string(error.what()).starts_with("filter (f.txt, line 4): unknown field"),
                 error.what());
    }
}

void TestFilter::filterFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("k.filter").toStdString();
    const int threshold = random_int(2, 7) * 16;
    {
        std::ofstream out(path);
        out << "# keep\nc.tile_m >= " << threshold << "\n\nc.pad_m\n";
    }
    FilterSet set;
    set.add_file(path);
    set.bind(config_schema());
    for (int round = 0; round < 100; ++round) {
        const Record r = random_record();
        QCOMPARE(set.matches(r), r.tile_m >= threshold && r.pad_m);
    }
    try {
        FilterSet().add_file(dir.filePath("missing.filter").toStdString());
        QFAIL("no error");
    } catch (const FilterError& error) {
        QCOMPARE(error.column, -1);
        QVERIFY2(std::string(error.what()).find("missing.filter") != std::string::npos,
                 error.what());
        QVERIFY(std::string(error.what()).find('\n') == std::string::npos);
    }
}

QTEST_APPLESS_MAIN(TestFilter)
#include "tst_filter.moc"
