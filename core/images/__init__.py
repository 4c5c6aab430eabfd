"""Images and samplers (the HSA images extension), host side: objects, formats, descriptors.

- objects: images and samplers of a session, their data operations;
- formats: the gfx10 format table (capabilities, element sizes, pixel encoding);
- descriptors: the device-side image and sampler objects ROCr writes (T#/S#).
"""
