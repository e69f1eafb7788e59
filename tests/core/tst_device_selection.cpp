// gconv-bench --devices: the list's syntax, the worker's device list, and the choice between
// them (indices that exist, one architecture, one model unless mixed ones are allowed, and the
// visibility value each GPU's workers get).
#include "sweep/device_selection.h"

#include <QtTest>

using namespace gconv;

namespace {

DeviceList host(const std::vector<std::pair<std::string, std::string>>& devices) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [name, arch] : devices) list.push_back({{"name", name}, {"arch", arch}});
    return device_list_from_json(
        {{"platform", "nvidia"}, {"visibility_env", "CUDA_VISIBLE_DEVICES"}, {"devices", list}});
}

template <class F> QString error_of(F&& f) {
    try {
        f();
    } catch (const DeviceChoiceError& e) {
        return QString("choice: ") + e.what();
    } catch (const Error& e) {
        return QString("error: ") + e.what();
    }
    return "no error";
}

} // namespace

class TestDeviceSelection : public QObject {
    Q_OBJECT

private slots:
    void lists_parse_in_order() {
        QVERIFY(!parse_device_indices("all").has_value());
        QCOMPARE(*parse_device_indices("0"), std::vector<int>{0});
        QCOMPARE(*parse_device_indices("3,1, 2"), (std::vector<int>{3, 1, 2}));
    }

    void bad_lists_say_what_is_wrong() {
        const std::vector<std::pair<QString, QString>> cases = {
            {"0,,1", "an empty entry in '0,,1'"},
            {"-1", "'-1' in '-1' is not a device index"},
            {"1,x", "'x' in '1,x' is not a device index"},
            {"0,1,0", "device 0 is listed twice in '0,1,0'"},
            {"", "no device given"},
            {"0,", "an empty entry"},
            {"1.5", "'1.5'"},
        };
        for (const auto& [text, needle] : cases) {
            const QString e = error_of([&] { parse_device_indices(text.toStdString()); });
            QVERIFY2(e.startsWith("choice: --devices: ") && e.contains(needle),
                     qPrintable(text + " -> " + e));
        }
    }

    void a_missing_device_names_those_there_are() {
        const DeviceList list = host({{"NVIDIA H200", "sm_90a"}, {"NVIDIA H200", "sm_90a"}});
        const QString e = error_of([&] {
            select_devices(list, std::vector<int>{0, 7}, false, nullptr);
        });
        QVERIFY2(e.startsWith("choice: ") && e.contains("no device 7") && e.contains("2 visible") &&
                     e.contains("1: NVIDIA H200"),
                 qPrintable(e));
    }

    void all_takes_every_device_in_order() {
        const DeviceList list = host({{"A", "sm_90a"}, {"A", "sm_90a"}, {"A", "sm_90a"}});
        const auto chosen = select_devices(list, std::nullopt, false, nullptr);
        QCOMPARE(chosen.size(), size_t(3));
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(chosen[size_t(i)].index, i);
            QCOMPARE(chosen[size_t(i)].visible_as, std::to_string(i));
        }
    }

    void mixed_models_need_allow_mixed() {
        const DeviceList list =
            host({{"NVIDIA H100 PCIe", "sm_90a"}, {"NVIDIA H100 SXM", "sm_90a"}});
        const QString e = error_of([&] {
            select_devices(list, std::vector<int>{0, 1}, false, nullptr);
        });
        QVERIFY2(e.startsWith("choice: ") && e.contains("different models") &&
                     e.contains("0: NVIDIA H100 PCIe") && e.contains("1: NVIDIA H100 SXM") &&
                     e.contains("--allow-mixed"),
                 qPrintable(e));
        QCOMPARE(select_devices(list, std::vector<int>{0, 1}, true, nullptr).size(), size_t(2));
        // One of them alone is not mixed.
        QCOMPARE(select_devices(list, std::vector<int>{1}, false, nullptr).size(), size_t(1));
    }

    void different_architectures_are_refused_even_when_mixed_is_allowed() {
        const DeviceList list = host({{"NVIDIA A100", "sm_80"}, {"NVIDIA H200", "sm_90a"}});
        const QString e = error_of([&] { select_devices(list, std::nullopt, true, nullptr); });
        QVERIFY2(e.startsWith("choice: ") && e.contains("different architectures") &&
                     e.contains("0: sm_80") && e.contains("1: sm_90a"),
                 qPrintable(e));
    }

    void an_inherited_visibility_list_is_followed() {
        // gconv-bench itself sees host GPUs 5 and 3 as its devices 0 and 1.
        const DeviceList list = host({{"A", "sm_90a"}, {"A", "sm_90a"}});
        const auto chosen = select_devices(list, std::vector<int>{1, 0}, false, "5, 3");
        QCOMPARE(chosen[0].visible_as, std::string("3"));
        QCOMPARE(chosen[1].visible_as, std::string("5"));
        const auto uuids = select_devices(list, std::vector<int>{1}, false, "GPU-aaaa,GPU-bbbb");
        QCOMPARE(uuids[0].visible_as, std::string("GPU-bbbb"));
    }

    void no_visible_device_is_not_a_command_line_error() {
        const DeviceList list = host({});
        const QString e = error_of([&] { select_devices(list, std::nullopt, false, ""); });
        QVERIFY2(e.startsWith("error: ") && e.contains("sees no GPU") &&
                     e.contains("CUDA_VISIBLE_DEVICES="),
                 qPrintable(e));
    }

    void a_malformed_device_list_names_the_field() {
        const QString a = error_of([] { device_list_from_json({{"platform", "nvidia"}}); });
        QVERIFY2(a.contains("visibility_env"), qPrintable(a));
        const QString b = error_of([] {
            device_list_from_json({{"platform", "nvidia"},
                                   {"visibility_env", "CUDA_VISIBLE_DEVICES"},
                                   {"devices", {{{"name", "x"}}}}});
        });
        QVERIFY2(b.contains("\"arch\"") && b.contains("devices[0]"), qPrintable(b));
    }
};

QTEST_APPLESS_MAIN(TestDeviceSelection)
#include "tst_device_selection.moc"
