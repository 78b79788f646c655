// ardent-editor [SCENE.json | MODEL] [--results DIR [--compare DIR]] [--screenshot FILE]: the Qt
// front end. The screenshot option shows the window, waits for it to render, saves what the screen
// shows and quits (the README's picture and the screenshot test use it).
#include <QApplication>
#include <QCommandLineParser>
#include <QGuiApplication>
#include <QPixmap>
#include <QScreen>
#include <QSurfaceFormat>
#include <QTimer>
#include <cstdio>

#include "ardent/editor/results_panel.h"
#include "main_window.h"
#include "scene_view.h"

int main(int argc, char** argv) {
    QSurfaceFormat fmt;
    fmt.setDepthBufferSize(24);
    fmt.setSamples(4);
    QSurfaceFormat::setDefaultFormat(fmt);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Ardent");
    QApplication::setApplicationName("ardent-editor");
    QApplication::setApplicationVersion(ARDENT_VERSION);

    QCommandLineParser cli;
    cli.setApplicationDescription("Ardent room-acoustics editor");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("file", "A scene (.json) or a model file to import");
    QCommandLineOption results({"r", "results"}, "Show a results directory", "DIR");
    QCommandLineOption shot("screenshot", "Save a screenshot after loading and quit", "FILE");
    QCommandLineOption delay("screenshot-delay", "Milliseconds to wait before it (default 1500)",
                             "MS", "1500");
    QCommandLineOption compare("compare", "Compare the results with another results directory",
                               "DIR");
    cli.addOptions({results, compare, shot, delay});
    cli.process(app);

    ardent::editor::MainWindow window;
    window.show();
    int status = 0;
    if (!cli.positionalArguments().isEmpty() &&
        !window.open_path(cli.positionalArguments().first()))
        status = 2;
    if (cli.isSet(results) && !window.open_results(cli.value(results))) status = 2;
    if (cli.isSet(compare)) {
        QString error;
        if (!window.results()->setReference(cli.value(compare), &error)) {
            std::fprintf(stderr, "ardent-editor: %s\n", qPrintable(error));
            status = 2;
        }
    }
    if (cli.isSet(shot)) {
        const QString file = cli.value(shot);
        QTimer::singleShot(cli.value(delay).toInt(), &window, [&window, file, status] {
            // On a real display (Xvfb too) take the screen's pixels, as a user would see them;
            // offscreen, render the window itself.
            QPixmap pix;
            if (QGuiApplication::platformName() == "xcb" && window.screen())
                pix = window.screen()->grabWindow(0);
            if (pix.isNull()) pix = window.grab();
            if (!pix.save(file)) {
                std::fprintf(stderr, "ardent-editor: cannot write '%s'\n", qPrintable(file));
                QApplication::exit(1);
                return;
            }
            if (!window.last_error().isEmpty())
                std::fprintf(stderr, "ardent-editor: %s\n", qPrintable(window.last_error()));
            QApplication::exit(status);
        });
    }
    return app.exec();
}
