#include "ui/resources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be used outside any namespace.
static void registerGconvResources() {
    Q_INIT_RESOURCE(gconv);
}

namespace gconv::ui {

void initResources() {
    static const bool once = (registerGconvResources(), true);
    (void)once;
}

} // namespace gconv::ui
