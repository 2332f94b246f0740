// Python bindings: exceptions become Python exceptions and end the command.
#include <pybind11/pybind11.h>

#include "remote_memory.h"

namespace py = pybind11;

PYBIND11_MODULE(_probe, m)
{
    py::class_<probe::RemoteMemory>(m, "RemoteMemory")
        .def(py::init<pid_t>())
        .def("read", &probe::RemoteMemory::read)
        .def("read_words", &probe::RemoteMemory::readWords)
        .def("read_switched", &probe::RemoteMemory::readSwitched)
        .def("read_saved", &probe::RemoteMemory::readSaved)
        .def("probe_address", &probe::RemoteMemory::probeAddress);
}
