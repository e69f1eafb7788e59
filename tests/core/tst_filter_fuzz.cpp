// Robustness of the filter language: random bytes, token soups, mutated and very deep
// inputs never crash and fail only with a well-formed FilterError; randomly generated
// well-typed expressions always parse, bind, print back to themselves and evaluate exactly
// as an independent reference evaluation in this file says.
#include "filter/filter_expression.h"

#include "filter_test_record.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <variant>

using namespace gconv;
using namespace gconv::test;

namespace {

using Record = FilterTestRecord;

struct Counts {
    int parse_errors = 0, bind_errors = 0, eval_errors = 0, evaluated = 0;
};

// Checks what every FilterError must satisfy; returns a description of a violation.
std::string violation(const FilterError& error, const std::string& text) {
    if (error.expression != text) return "expression differs from the input";
    if (error.column < 0 || error.column > static_cast<int>(text.size()))
        return "column " + std::to_string(error.column) + " outside the expression";
    if (error.reason.empty()) return "empty reason";
    const std::string message = error.what();
    if (message.rfind("filter: ", 0) != 0) return "message does not start with 'filter: '";
    if (std::count(message.begin(), message.end(), '\n') != 2)
        return "message is not reason + expression + caret";
    if (message.back() != '^') return "message does not end with the caret";
    return "";
}

Record record_with_any_latency() {
    Record record = random_record();
    switch (random_int(0, 2)) {
    case 0:
        record.latency = FilterValue::from_string("N/A");
        break;
    case 1:
        record.latency = FilterValue::from_bool(random_int(0, 1) == 1);
        break;
    default:
        break; // a number
    }
    return record;
}

// Parses, binds (to each kind of schema) and evaluates `text`; only FilterError may escape
// the library. Returns an empty string or what went wrong.
std::string exercise(const std::string& text, Counts& counts) {
    static const FieldSchema schemas[] = {config_schema(), strict_config_schema(), row_schema()};
    try {
        FilterExpression filter;
        try {
            filter = FilterExpression::parse(text);
        } catch (const FilterError& error) {
            ++counts.parse_errors;
            return violation(error, text);
        }
        if (filter.canonical_text() !=
            FilterExpression::parse(filter.canonical_text()).canonical_text())
            return "canonical text does not parse back to itself";
        for (const auto& schema : schemas) {
            try {
                filter.bind(schema);
            } catch (const FilterError& error) {
                ++counts.bind_errors;
                if (auto problem = violation(error, text); !problem.empty()) return problem;
                continue;
            }
            for (int i = 0; i < 3; ++i) {
                try {
                    filter.matches(record_with_any_latency());
                    ++counts.evaluated;
                } catch (const FilterError& error) {
                    ++counts.eval_errors;
                    if (auto problem = violation(error, text); !problem.empty()) return problem;
                }
            }
        }
        return "";
    } catch (const std::exception& error) {
        return std::string("unexpected exception: ") + error.what();
    } catch (...) {
        return "unexpected non-standard exception";
    }
}

std::string printable(const std::string& text) {
    std::string shown;
    for (const char ch : text) {
        const auto byte = static_cast<unsigned char>(ch);
        if (byte >= 0x20 && byte < 0x7F) {
            shown += ch;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", byte);
            shown += hex;
        }
    }
    return shown;
}

#define CHECK_EXERCISE(text, counts)                                                               \
    do {                                                                                           \
        const std::string input_ = (text);                                                         \
        const std::string problem_ = exercise(input_, counts);                                     \
        if (!problem_.empty())                                                                     \
            QFAIL(("input \"" + printable(input_) + "\": " + problem_).c_str());                   \
    } while (false)

std::string random_bytes(int max_length, bool ascii_only) {
    std::string bytes;
    const int length = random_int(0, max_length);
    for (int i = 0; i < length; ++i)
        bytes += static_cast<char>(ascii_only ? random_int(0x20, 0x7E) : random_int(0, 255));
    return bytes;
}

const std::vector<std::string>& token_vocabulary() {
    static const std::vector<std::string> vocabulary = {"c.tile_m",
                                                        "tile_n",
                                                        "c.tile_k",
                                                        "pipeline",
                                                        "c.name",
                                                        "pad_m",
                                                        "latency",
                                                        "c",
                                                        ".",
                                                        "x.tile_m",
                                                        "zz",
                                                        "c.",
                                                        "and",
                                                        "or",
                                                        "not",
                                                        "in",
                                                        "not in",
                                                        "True",
                                                        "false",
                                                        "==",
                                                        "!=",
                                                        "<",
                                                        "<=",
                                                        ">",
                                                        ">=",
                                                        "+",
                                                        "-",
                                                        "*",
                                                        "/",
                                                        "%",
                                                        "(",
                                                        ")",
                                                        "[",
                                                        "]",
                                                        ",",
                                                        "0",
                                                        "1",
                                                        "16",
                                                        "128",
                                                        "2.5",
                                                        ".5",
                                                        "1e3",
                                                        "5.",
                                                        "1e999",
                                                        "'compv5'",
                                                        "\"mem\"",
                                                        "'a\\'b'",
                                                        "''",
                                                        "'",
                                                        "\"",
                                                        "\\",
                                                        "=",
                                                        "!",
                                                        "&&",
                                                        "||",
                                                        "#",
                                                        "**",
                                                        "//",
                                                        "is",
                                                        "1e",
                                                        "12abc",
                                                        "\t",
                                                        "\n",
                                                        "@",
                                                        "\xC3\xA9",
                                                        "len(",
                                                        "[0]",
                                                        "c.tile_m.x",
                                                        "1 <",
                                                        "tile_m /",
                                                        "(tile_n - tile_n)"};
    return vocabulary;
}

std::string token_soup() {
    const auto& vocabulary = token_vocabulary();
    std::string soup;
    const int count = random_int(1, 14);
    for (int i = 0; i < count; ++i) {
        if (i > 0 && random_int(0, 3) != 0) soup += ' ';
        soup += vocabulary[static_cast<std::size_t>(
            random_int(0, static_cast<int>(vocabulary.size()) - 1))];
    }
    return soup;
}

// ---- A generator of well-typed expressions with their reference value ----

struct DivisionByZero {};

struct Ref {
    ValueKind kind = ValueKind::Number;
    double number = 0;
    std::string text;
};

using RefEval = std::function<Ref(const Record&)>;

enum Level { kOr = 1, kAnd, kNot, kComparison, kSum, kTerm, kUnary, kAtom };

struct Generated {
    std::string text;
    int level = kAtom;
    RefEval eval;
};

Ref ref_number(double value) {
    return {ValueKind::Number, value, {}};
}
Ref ref_bool(bool value) {
    return {ValueKind::Bool, value ? 1.0 : 0.0, {}};
}

bool ref_equal(const Ref& a, const Ref& b) {
    const bool a_string = a.kind == ValueKind::String, b_string = b.kind == ValueKind::String;
    if (a_string && b_string) return a.text == b.text;
    if (a_string || b_string) return false;
    return a.number == b.number;
}

// Parenthesises the operand when the grammar needs it, and now and then when it does not.
std::string operand(const Generated& g, int min_level) {
    if (g.level < min_level || random_int(0, 5) == 0) return "(" + g.text + ")";
    return g.text;
}

std::string write_string(const std::string& raw) {
    const char quote = random_int(0, 1) ? '\'' : '"';
    std::string text(1, quote);
    for (const char ch : raw) {
        if (ch == quote || ch == '\\') text += '\\';
        if (ch == '\n') {
            text += "\\n";
            continue;
        }
        text += ch;
    }
    return text + quote;
}

class Generator {
public:
    Generated of_kind(ValueKind kind, int depth) {
        switch (kind) {
        case ValueKind::Number:
            return number(depth);
        case ValueKind::String:
            return string();
        case ValueKind::Bool:
            return condition(depth);
        }
        return condition(depth);
    }

    Generated number(int depth) {
        const int choice = random_int(0, depth <= 0 ? 2 : 5);
        if (choice == 0) {
            const double value =
                random_int(0, 3) == 0 ? random_int(1, 40) / 8.0 : random_int(1, 200);
            return {format_number(value), kAtom,
                    [value](const Record&) { return ref_number(value); }};
        }
        if (choice == 1) {
            static const char* const names[] = {"tile_m", "c.tile_n", "tile_k", "c.latency"};
            const int which = random_int(0, 3);
            return {names[which], kAtom, [which](const Record& r) {
                        const double values[] = {r.tile_m, r.tile_n, r.tile_k, r.latency.number};
                        return ref_number(values[which]);
                    }};
        }
        if (choice == 2) {
            // A bool acts as 0/1 in arithmetic.
            return {"c.pad_m", kAtom, [](const Record& r) { return ref_number(r.pad_m ? 1 : 0); }};
        }
        if (choice == 3) {
            Generated inner = number(depth - 1);
            return {"-" + operand(inner, kUnary), kUnary,
                    [e = inner.eval](const Record& r) { return ref_number(-e(r).number); }};
        }
        static const char ops[] = {'+', '-', '*', '/', '%'};
        const char op = ops[random_int(0, 4)];
        const int level = (op == '+' || op == '-') ? kSum : kTerm;
        Generated left = number(depth - 1), right = number(depth - 1);
        std::string text = operand(left, level) + " " + op + " " + operand(right, level + 1);
        return {text, level, [op, a = left.eval, b = right.eval](const Record& r) {
                    const double x = a(r).number, y = b(r).number;
                    switch (op) {
                    case '+':
                        return ref_number(x + y);
                    case '-':
                        return ref_number(x - y);
                    case '*':
                        return ref_number(x * y);
                    case '/':
                        if (y == 0) throw DivisionByZero{};
                        return ref_number(x / y);
                    default: {
                        if (y == 0) throw DivisionByZero{};
                        double m = std::fmod(x, y);
                        if (m != 0 && ((m < 0) != (y < 0))) m += y;
                        return ref_number(m);
                    }
                    }
                }};
    }

    Generated string() {
        if (random_int(0, 1) == 0) {
            const bool pipeline = random_int(0, 1) == 0;
            return {pipeline ? "c.pipeline" : "name", kAtom, [pipeline](const Record& r) {
                        return Ref{ValueKind::String, 0, pipeline ? r.pipeline : r.name};
                    }};
        }
        static const char* const words[] = {"compv3",    "compv5", "mem", "it's",
                                            "say \"x\"", "a\\b",   "",    "line\nbreak"};
        const std::string raw = random_int(0, 2) == 0 ? random_word(0, 4) : words[random_int(0, 7)];
        return {write_string(raw), kAtom, [raw](const Record&) {
                    return Ref{ValueKind::String, 0, raw};
                }};
    }

    Generated condition(int depth) {
        const int choice = random_int(0, depth <= 0 ? 3 : 8);
        switch (choice) {
        case 0:
            return {"pad_m", kAtom, [](const Record& r) { return ref_bool(r.pad_m); }};
        case 1: {
            const bool value = random_int(0, 1) == 1;
            static const char* const spellings[] = {"False", "True", "false", "true"};
            return {spellings[value + 2 * random_int(0, 1)], kAtom,
                    [value](const Record&) { return ref_bool(value); }};
        }
        case 2:
            return chain(ValueKind::Number, 0);
        case 3:
            return chain(ValueKind::String, 0);
        case 4:
            return chain(random_int(0, 1) ? ValueKind::Number : ValueKind::String, depth - 1);
        case 5:
            return membership(depth - 1);
        case 6: {
            Generated inner = condition(depth - 1);
            return {"not " + operand(inner, kNot), kNot,
                    [e = inner.eval](const Record& r) { return ref_bool(!e(r).number); }};
        }
        default:
            return junction(random_int(0, 1) == 0, depth - 1);
        }
    }

    // Mixed ==/!= between a number and a string is allowed (false/true); ordering is not.
    Generated chain(ValueKind kind, int depth) {
        static const char* const ops[] = {"==", "!=", "<", "<=", ">", ">="};
        const int links = random_int(1, 3);
        std::vector<Generated> operands = {of_kind(kind, depth)};
        std::vector<int> chosen;
        std::string text = operand(operands[0], kSum);
        for (int i = 0; i < links; ++i) {
            int op = random_int(0, 5);
            ValueKind next_kind = kind;
            if (op <= 1 && random_int(0, 4) == 0)
                next_kind = kind == ValueKind::String ? ValueKind::Number : ValueKind::String;
            // After a mixed pair the next link orders the new kind against itself.
            kind = next_kind;
            operands.push_back(of_kind(next_kind, depth));
            chosen.push_back(op);
            text += std::string(" ") + ops[op] + " " + operand(operands.back(), kSum);
        }
        std::vector<RefEval> evals;
        for (auto& g : operands) evals.push_back(g.eval);
        return {text, kComparison, [evals, chosen](const Record& r) {
                    Ref left = evals[0](r);
                    for (std::size_t i = 0; i < chosen.size(); ++i) {
                        const Ref right = evals[i + 1](r);
                        bool holds = false;
                        const bool strings = left.kind == ValueKind::String;
                        switch (chosen[i]) {
                        case 0:
                            holds = ref_equal(left, right);
                            break;
                        case 1:
                            holds = !ref_equal(left, right);
                            break;
                        case 2:
                            holds = strings ? left.text < right.text : left.number < right.number;
                            break;
                        case 3:
                            holds = strings ? left.text <= right.text : left.number <= right.number;
                            break;
                        case 4:
                            holds = strings ? left.text > right.text : left.number > right.number;
                            break;
                        default:
                            holds = strings ? left.text >= right.text : left.number >= right.number;
                            break;
                        }
                        if (!holds) return ref_bool(false);
                        left = right;
                    }
                    return ref_bool(true);
                }};
    }

    Generated membership(int depth) {
        const ValueKind kind = random_int(0, 1) ? ValueKind::Number : ValueKind::String;
        Generated needle = of_kind(kind, depth);
        const bool negated = random_int(0, 1) == 1;
        std::string text = operand(needle, kSum) + (negated ? " not in [" : " in [");
        std::vector<RefEval> elements;
        const int count = random_int(0, 4);
        for (int i = 0; i < count; ++i) {
            const ValueKind element_kind =
                random_int(0, 3) == 0 ? (random_int(0, 1) ? ValueKind::Number : ValueKind::String)
                                      : kind;
            Generated element = of_kind(element_kind, depth);
            text += (i > 0 ? ", " : "") + operand(element, kOr);
            elements.push_back(element.eval);
        }
        if (count > 0 && random_int(0, 3) == 0) text += ",";
        text += "]";
        return {text, kComparison, [n = needle.eval, elements, negated](const Record& r) {
                    const Ref value = n(r);
                    for (const auto& element : elements)
                        if (ref_equal(value, element(r))) return ref_bool(!negated);
                    return ref_bool(negated);
                }};
    }

    Generated junction(bool is_and, int depth) {
        const int count = random_int(2, 4);
        const int level = is_and ? kAnd : kOr;
        std::string text;
        std::vector<RefEval> terms;
        for (int i = 0; i < count; ++i) {
            Generated term = condition(depth);
            text += (i > 0 ? (is_and ? " and " : " or ") : "") + operand(term, level + 1);
            terms.push_back(term.eval);
        }
        return {text, level, [terms, is_and](const Record& r) {
                    for (const auto& term : terms)
                        if ((term(r).number != 0) != is_and) return ref_bool(!is_and);
                    return ref_bool(is_and);
                }};
    }
};

} // namespace

class TestFilterFuzz : public QObject {
    Q_OBJECT

private slots:
    void randomBytes();
    void randomAscii();
    void tokenSoup();
    void generatedExpressionsMatchReference();
    void mutatedExpressions();
    void deepInputs_data();
    void deepInputs();
    void boundedNestingIsAccepted();
};

void TestFilterFuzz::randomBytes() {
    Counts counts;
    for (int i = 0; i < 4000; ++i) CHECK_EXERCISE(random_bytes(48, false), counts);
    QVERIFY(counts.parse_errors > 0);
}

void TestFilterFuzz::randomAscii() {
    Counts counts;
    for (int i = 0; i < 4000; ++i) CHECK_EXERCISE(random_bytes(24, true), counts);
    QVERIFY(counts.parse_errors > 0);
}

void TestFilterFuzz::tokenSoup() {
    Counts counts;
    for (int i = 0; i < 20000; ++i) CHECK_EXERCISE(token_soup(), counts);
    qInfo("token soup: %d parse errors, %d bind errors, %d evaluation errors, %d evaluated",
          counts.parse_errors, counts.bind_errors, counts.eval_errors, counts.evaluated);
    // The soup must reach every stage, or it tests only the lexer.
    QVERIFY(counts.parse_errors > 0);
    QVERIFY(counts.bind_errors > 0);
    QVERIFY(counts.eval_errors > 0);
    QVERIFY(counts.evaluated > 0);
}

void TestFilterFuzz::generatedExpressionsMatchReference() {
    Generator generator;
    int divisions_by_zero = 0, passed = 0;
    for (int i = 0; i < 3000; ++i) {
        const Generated g = generator.condition(random_int(1, 4));
        FilterExpression filter;
        try {
            filter = FilterExpression::parse(g.text);
            filter.bind(random_int(0, 1) ? config_schema() : strict_config_schema());
        } catch (const FilterError& error) {
            // strict_config_schema rejects bare names; only that may fail here.
            const std::string reason = error.reason;
            if (reason.rfind("a bare name is not accepted", 0) == 0) continue;
            QFAIL((g.text + "\n" + error.what()).c_str());
        }
        const auto again = FilterExpression::parse(filter.canonical_text());
        QCOMPARE(again.canonical_text(), filter.canonical_text());
        for (int round = 0; round < 4; ++round) {
            const Record record = random_record();
            std::optional<bool> expected;
            try {
                expected = g.eval(record).number != 0;
            } catch (const DivisionByZero&) {
            }
            try {
                const bool got = filter.matches(record);
                QVERIFY2(expected.has_value(), ("expected a division by zero: " + g.text).c_str());
                QVERIFY2(got == *expected, g.text.c_str());
                passed += got;
            } catch (const FilterError& error) {
                QVERIFY2(!expected.has_value(), (g.text + "\n" + error.what()).c_str());
                QVERIFY2(error.reason.find("by zero") != std::string::npos, error.what());
                ++divisions_by_zero;
            }
        }
    }
    qInfo("generated: %d matched, %d divisions by zero", passed, divisions_by_zero);
    QVERIFY(passed > 0);
}

void TestFilterFuzz::mutatedExpressions() {
    Generator generator;
    Counts counts;
    const auto& vocabulary = token_vocabulary();
    for (int i = 0; i < 3000; ++i) {
        std::string text = generator.condition(random_int(1, 3)).text;
        const int edits = random_int(1, 3);
        for (int e = 0; e < edits && !text.empty(); ++e) {
            const auto at =
                static_cast<std::size_t>(random_int(0, static_cast<int>(text.size()) - 1));
            switch (random_int(0, 3)) {
            case 0:
                text.erase(at, 1);
                break;
            case 1:
                text[at] = static_cast<char>(random_int(0, 255));
                break;
            case 2:
                text.insert(at, 1, static_cast<char>(random_int(0x20, 0x7E)));
                break;
            default:
                text.insert(at, vocabulary[static_cast<std::size_t>(
                                    random_int(0, static_cast<int>(vocabulary.size()) - 1))]);
            }
        }
        CHECK_EXERCISE(text, counts);
    }
    QVERIFY(counts.parse_errors > 0);
    QVERIFY(counts.evaluated > 0);
}

void TestFilterFuzz::deepInputs_data() {
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("middle");
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<bool>("valid");
    // Each row repeats `middle` many times between prefix and suffix.
    QTest::newRow("open parentheses") << ""
                                      << "("
                                      << "pad_m" << false;
    QTest::newRow("not") << ""
                         << "not "
                         << "pad_m" << false;
    QTest::newRow("unary minus") << ""
                                 << "-"
                                 << "1 > 0" << false;
    QTest::newRow("sum") << ""
                         << "tile_m + "
                         << "1 > 0" << false;
    QTest::newRow("product") << "1 < "
                             << "2 * "
                             << "3" << false;
    QTest::newRow("nested lists") << ""
                                  << "tile_m in ["
                                  << "1" << false;
    QTest::newRow("and") << ""
                         << "pad_m and "
                         << "pad_m" << true;
    QTest::newRow("or") << ""
                        << "tile_m < 0 or "
                        << "pad_m" << true;
    QTest::newRow("chain") << ""
                           << "1 <= "
                           << "tile_m" << true;
    QTest::newRow("long list") << "tile_m in ["
                               << "16, "
                               << "]" << true;
}

void TestFilterFuzz::deepInputs() {
    QFETCH(QString, prefix);
    QFETCH(QString, middle);
    QFETCH(QString, suffix);
    QFETCH(bool, valid);
    std::string text = prefix.toStdString();
    const int repeat = random_int(20000, 40000);
    for (int i = 0; i < repeat; ++i) text += middle.toStdString();
    text += suffix.toStdString();
    Counts counts;
    CHECK_EXERCISE(text, counts);
    if (valid) {
        QCOMPARE(counts.parse_errors, 0);
        QVERIFY(counts.evaluated > 0);
    } else {
        QCOMPARE(counts.parse_errors, 1);
    }
}

void TestFilterFuzz::boundedNestingIsAccepted() {
    const int depth = random_int(10, 50); // parentheses + minus signs stay <= 100
    const std::string text = std::string(depth, '(') + "c.tile_m > " + std::string(depth, '-') +
                             "1" + std::string(depth, ')');
    auto filter = FilterExpression::parse(text);
    filter.bind(config_schema());
    Record record = random_record();
    QCOMPARE(filter.matches(record), record.tile_m > (depth % 2 ? -1 : 1));
}

QTEST_APPLESS_MAIN(TestFilterFuzz)
#include "tst_filter_fuzz.moc"
