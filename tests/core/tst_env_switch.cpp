// The opt-in switches read from the environment (util/env_switch.h): only "1" turns one on.
#include "util/env_switch.h"

#include <QtTest>

class TestEnvSwitch : public QObject {
    Q_OBJECT

private slots:
    void only_one_turns_a_switch_on() {
        const char* name = "GCONV_TEST_ENV_SWITCH";
        qunsetenv(name);
        QVERIFY(!gconv::env_switch_on(name));
        for (const char* off : {"", "0", "true", "11", " 1"}) {
            qputenv(name, off);
            QVERIFY2(!gconv::env_switch_on(name), off);
        }
        qputenv(name, "1");
        QVERIFY(gconv::env_switch_on(name));
        qunsetenv(name);
    }
};

QTEST_APPLESS_MAIN(TestEnvSwitch)
#include "tst_env_switch.moc"
