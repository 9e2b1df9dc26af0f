# SPDX-License-Identifier: GPL-2.0-only
# `cmake --install` and the Debian package (CPack's DEB generator); docs/install.md.
include(GNUInstallDirs)

install(TARGETS schedlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The twin's /init (schedlab measure --vm) is no command for users, so it stays off the PATH;
# measure --vm looks for it beside schedlab and then in ../libexec/schedlab (src/vm/twin.cpp),
# hence the fixed path below. OPTIONAL: a build of the schedlab target alone has no guest.
install(TARGETS schedlab-guest RUNTIME DESTINATION libexec/schedlab OPTIONAL)

install(DIRECTORY scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/schedlab/scenarios
        FILES_MATCHING PATTERN "*.toml" PATTERN "*.json")
# The README and the docs it links to, in the same layout so that the links work.
install(FILES README.md LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian's place for the licence statement (the package's /usr/share/doc/schedlab/copyright).
file(WRITE ${PROJECT_BINARY_DIR}/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: schedlab

Files: *
Copyright: the schedlab authors
License: GPL-2.0-only
 This program is free software; you can redistribute it and/or modify it under the terms of
 the GNU General Public License version 2 as published by the Free Software Foundation.
 .
 On Debian systems, the full text of the GNU General Public License version 2 is in
 /usr/share/common-licenses/GPL-2, and in LICENSE beside this file.
")
install(FILES ${PROJECT_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.svg")
configure_file(docs/schedlab.1 ${PROJECT_BINARY_DIR}/schedlab.1 @ONLY)
# Installed compressed, as Debian policy asks of manual pages (gzip -9n: no name or time stamp,
# so the same page gives the same bytes).
execute_process(COMMAND gzip -9n -c ${PROJECT_BINARY_DIR}/schedlab.1
                OUTPUT_FILE ${PROJECT_BINARY_DIR}/schedlab.1.gz COMMAND_ERROR_IS_FATAL ANY)
install(FILES ${PROJECT_BINARY_DIR}/schedlab.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES tools/completion/schedlab DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME schedlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${SCHEDLAB_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "simulator and lab for the Linux CPU scheduler (SMT core scheduling)")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SCHEDLAB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The Depends line comes from the libraries the binaries link (dpkg-shlibdeps, in dpkg-dev), so
# it names Open MPI only when this build found it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "qemu-system-x86, openmpi-bin, rt-app")
# CPack puts the summary above this and indents it; an empty line separates paragraphs.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "schedlab runs a model of the Linux fair-class scheduler (EEVDF, select_idle_sibling(),
load balancing, PELT and the core-wide pick of core scheduling) on a simulated SMT machine,
deterministically, to show what a scheduler patch does to a workload before test machines
are booted. Scenarios are TOML or rt-app JSON files; experiments compare kernel
configurations on the same seeds, with confidence intervals.

The same scenario can run for real, on the host (schedlab measure) or on a core-scheduling
kernel in QEMU (measure --vm), and ftrace traces can be replayed as workloads.")
include(CPack)
